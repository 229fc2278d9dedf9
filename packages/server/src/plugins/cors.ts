import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { AppError } from '../lib/errors.js';
import { metrics } from '../lib/metrics.js';

/** Local development origins: any port on localhost or the loopback addresses. */
const LOCAL = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** Headers a browser app may read: request ids, rate limits, retry hints, file names, entity tags and replays. */
export const EXPOSED_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'content-disposition',
  'etag',
  'idempotent-replayed',
  // A deprecated operation's announcement (plugins/deprecation.ts), readable by a browser client too.
  'deprecation',
  'sunset',
  'link',
  // The request's trace when tracing is on (src/tracing.ts).
  'traceresponse',
];

/**
 * Which browser origins may call the API: those of CORS_ORIGINS (`*` for any), and outside
 * production any local origin. Bearer tokens travel in a header, never in cookies, so
 * credentials are not enabled. Preflights are answered for every path. A request without an
 * `Origin` header is not a cross-origin request of a browser (browsers send it on every one) and
 * gets no CORS headers, only `Vary: Origin`.
 */
export function corsOptions(config: Config): FastifyCorsOptions {
  const allowed = allowedOrigin(config);
  return {
    origin: (origin, done) => done(null, origin !== undefined && allowed(origin)),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: false,
  };
}

/** Whether a browser origin may call: listed in CORS_ORIGINS (`*`: any), or local outside production. */
export function allowedOrigin(config: Config): (origin: string) => boolean {
  const listed = new Set(config.corsOrigins);
  const any = listed.has('*');
  const local = config.nodeEnv !== 'production';
  return (origin) => any || listed.has(origin) || (local && LOCAL.test(origin));
}

/** A browser sends `Origin` on its same-origin POSTs too: the server's own origin is never refused. */
const sameOrigin = (req: FastifyRequest, origin: string, publicOrigin: string) =>
  origin === publicOrigin || origin === `${req.protocol}://${req.host}`;

/**
 * CORS: a request (or preflight) that carries an `Origin` the server does not allow is refused
 * before anything else runs (no identification, no quota, no handler): 403 `CORS_ORIGIN_REFUSED`
 * naming the origin and the setting to change, and a `warn` line saying the same. Allowed origins
 * get @fastify/cors's headers; requests without `Origin` pass untouched.
 */
export default fp(async function corsPolicy(app: FastifyInstance) {
  const { config } = app;
  const allowed = allowedOrigin(config);
  const publicOrigin = new URL(config.publicBaseUrl).origin;
  app.addHook('onRequest', (req, _reply, done) => {
    const origin = req.headers.origin;
    if (origin === undefined || allowed(origin) || sameOrigin(req, origin, publicOrigin)) return done();
    metrics.corsRefusals.inc();
    const shown = origin.slice(0, 2048);
    req.log.warn(
      { origin: shown, method: req.method, url: req.url, setting: 'CORS_ORIGINS' },
      `CORS: origin ${shown} refused; add it to CORS_ORIGINS to let its pages call the API`,
    );
    done(
      new AppError(
        'CORS_ORIGIN_REFUSED',
        { origin: shown, setting: 'CORS_ORIGINS' },
        `Origin ${shown} is not allowed to call this API: add it to CORS_ORIGINS`,
      ),
    );
  });
  await app.register(cors, corsOptions(config));
});
