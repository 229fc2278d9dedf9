import type { FastifyCorsOptions } from '@fastify/cors';
import type { Config } from '../config.js';

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
];

/**
 * Which browser origins may call the API: those of CORS_ORIGINS (`*` for any), and outside
 * production any local origin. Bearer tokens travel in a header, never in cookies, so
 * credentials are not enabled. Preflights are answered for every path. A request without an
 * `Origin` header is not a cross-origin request of a browser (browsers send it on every one) and
 * gets no CORS headers, only `Vary: Origin`.
 */
export function corsOptions(config: Config): FastifyCorsOptions {
  const listed = new Set(config.corsOrigins);
  const any = listed.has('*');
  const local = config.nodeEnv !== 'production';
  return {
    origin: (origin, done) => done(null, origin !== undefined && (any || listed.has(origin) || (local && LOCAL.test(origin)))),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: false,
  };
}
