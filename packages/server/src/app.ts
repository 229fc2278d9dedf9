import { randomUUID } from 'node:crypto';
import compress from '@fastify/compress';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import { loadContract } from './contract.js';
import type { Database } from './db/schema.js';
import { serviceHandlers } from './http/bind.js';
import { requestLoggerFactory } from './http/request-logger.js';
import { routeSpecification } from './http/route-document.js';
import { type Bus, memoryBus, redisBus } from './lib/bus.js';
import { activeTracer } from './lib/tracing.js';
import { createRedis, untilReady } from './lib/redis.js';
import corsPolicy from './plugins/cors.js';
import { createSessionGuard, type SessionGuard } from './modules/auth/sessions.js';
import { registerJwt, type Tokens } from './modules/auth/tokens.js';
import { handlers, representations } from './modules/index.js';
import attachmentSweeper from './modules/complaints/attachment-sweeper.js';
import outboxWorker from './modules/notifications/worker.js';
import webhookWorker from './modules/webhooks/worker.js';
import { type ApiKeyGuard, createApiKeyGuard } from './modules/api-keys/guard.js';
import statisticsFold from './modules/reports/statistics-fold.js';
import trackingPage from './modules/public-tracking/page.js';
import database from './plugins/database.js';
import { takeSnapshot } from './db/snapshot.js';
import deprecation from './plugins/deprecation.js';
import docs from './plugins/docs.js';
import errors, { clientErrorHandler, frameworkErrors } from './plugins/errors.js';
import fileStore from './plugins/file-store.js';
import headers from './plugins/headers.js';
import metrics from './plugins/metrics.js';
import rateLimits from './plugins/rate-limit.js';
import security, { securityHandlers } from './plugins/security.js';
import serialization from './plugins/serialization.js';
import shutdown from './plugins/shutdown.js';
import uploads from './plugins/uploads.js';
import validation from './plugins/validation.js';
import writeSafety from './http/write-safety/plugin.js';
import writeSafetySweeper from './http/write-safety/sweeper.js';
import auditSweeper from './modules/audit/sweeper.js';
import positionMaintenance from './modules/tracking/maintenance.js';
import liveStreams from './modules/live/plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    tokens: Tokens;
    bus: Bus;
    sessions: SessionGuard;
    /** Partner API keys (`X-API-Key`) and the service accounts they act as. */
    apiKeys: ApiKeyGuard;
    /** Shared Redis client when REDIS_URL is set (rate limits, caches); null otherwise. */
    redis: Redis | null;
  }
}

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export interface BuildOptions {
  /** Use this database instead of opening one from the configuration (tests). */
  db?: Kysely<Database>;
  /** The request tracing plugin when OpenTelemetry is on (src/tracing.ts), registered first. */
  tracing?: FastifyPluginAsync;
}

/** Builds the whole API as a Fastify instance (not listening): `server.ts` starts it, tests `inject` into it. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const tracer = options.tracing ? activeTracer() : null;
  const app = Fastify({
    logger: Object.assign(
      { level: config.logLevel, redact: ['req.headers.authorization'] },
      // Lines written inside a traced request or delivery carry its trace_id and span_id.
      tracer ? { mixin: () => tracer.logFields() } : {},
    ),
    // A request's logger is made when it first logs (most requests log nothing at warn).
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: config.jsonBodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
    // A hop count trusts that many proxies in front of the server (Fastify's own number option
    // trusts none, so it is spelled out as a function); addresses and CIDRs go to proxy-addr.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    requestTimeout: config.timeouts.requestMs,
    connectionTimeout: config.timeouts.idleMs,
    clientErrorHandler,
    frameworkErrors,
    // Requests arriving while the server drains get the envelope from plugins/shutdown.ts instead.
    return503OnClosing: false,
  });
  // Headers must arrive within this time (a slow-header client cannot hold a socket).
  app.server.headersTimeout = config.timeouts.headersMs;
  // First: its hooks open the request's span, which every later hook and the handler run in.
  if (options.tracing) await app.register(options.tracing);
  app.decorate('config', config);
  app.decorate('tokens', await registerJwt(app, config.jwt));
  // Redis is optional and may be down: the API keeps serving with in-process fallbacks.
  const redisDown = (error: Error) => app.log.warn({ err: error }, 'Redis unreachable: in-process rate limits and caches until it is back');
  const redis = config.redisUrl ? createRedis(config.redisUrl, redisDown) : null;
  app.decorate('redis', redis);
  if (redis) app.addHook('onClose', async () => redis.disconnect());
  if (redis && !(await untilReady(redis))) app.log.warn('Redis not reachable at start: serving without it until it is');
  const bus = config.redisUrl ? redisBus(config.redisUrl, `${config.redisPrefix}bus:`, redisDown) : memoryBus();
  app.decorate('bus', bus);
  app.addHook('onClose', async () => bus.close());

  /*
   * The request path, in the order a request meets it (registration order below differs: plugins
   * that rewrite routes do it in `onRoute` as glue adds each route at the end):
   *  1. request id      Fastify: `X-Request-Id` taken or a UUID made (`genReqId` above); timeouts.
   *  2. draining        shutdown.ts: while closing, 503 + Retry-After + Connection: close.
   *  3. headers         headers.ts: security headers (helmet's, computed once) and x-request-id.
   *  4. CORS            cors.ts: a refused Origin answered 403 CORS_ORIGIN_REFUSED here; then
   *                     @fastify/cors: preflights answered, allowed origins echoed.
   *  5. identity        security.ts: bearer token or X-API-Key -> `req.auth` (lib/identity.ts);
   *                     public operations skip it.
   *  6. rate limit      rate-limit.ts, applied by security.ts: per user or per address (not probes).
   *  7. roles           security.ts: the operation's security requirement from the contract, 401/403.
   *  8. body gate       validation.ts: 415 for a media type the operation does not declare;
   *                     uploads.ts: multipart request capped while it streams.
   *  9. body parse      JSON: `bodyLimit` (413), shape bounded (http/json-structure.ts), then
   *                     secure-json-parse; multipart parts read (uploads.ts); required body -> 400.
   * 10. validation      validation.ts: params, query, headers and body against the contract (ajv).
   * 11. write safety    http/write-safety/ (onRequest: a key marked running here; preHandler:
   *                     Idempotency-Key claimed or replayed; If-Match checked).
   * 12. handler         glue -> http/bind.ts -> modules/<name>/handlers.ts (typed by the contract);
   *                     under a key, in one request transaction with its stored answer.
   * 13. serialization   bind.ts + serialization.ts: the success envelope, serialized from the
   *                     contract's response schema; ETag/304 and stored idempotent answers.
   * 14. on send         compression (br/gzip over 1 KiB), /docs CSP and token no-store (headers.ts),
   *                     Deprecation/Sunset (deprecation.ts), upload spool freed, error answer stored under its key or the key freed.
   * 15. after           lock released, conditional GET counted unless 304, file sweep after a
   *                     write, webhook worker woken after a write.
   * Errors at any step: errors.ts turns them into the contract's envelope (404 for no route).
   */
  // The error handler must be in place before glue registers the routes.
  await app.register(errors);
  await app.register(shutdown);
  await app.register(headers);
  await app.register(deprecation, {});
  // Before the security plugin: preflights are answered without identification or rate limits.
  await app.register(corsPolicy);
  await app.register(compress, { global: true, threshold: 1024, encodings: ['br', 'gzip'] });
  await app.register(serialization);
  await app.register(validation);
  await app.register(database, { db: options.db });
  // Before the workers: they add their backlog gauges to the scrape.
  await app.register(metrics);
  app.decorate('sessions', createSessionGuard(app.db, bus));
  // What `POST /sandbox/reset` puts back: the data the sandbox started with.
  if (config.sandbox) await takeSnapshot(app.db);
  app.decorate(
    'apiKeys',
    createApiKeyGuard(app.db, (error) => app.log.warn({ err: error }, 'recording the use of an API key failed')),
  );
  await app.register(rateLimits);
  await app.register(security);
  await app.register(uploads);
  await app.register(fileStore);
  // After security and uploads: the caller is known and the body read when a key is claimed.
  await app.register(writeSafety, { representations });
  await app.register(docs);
  await app.register(trackingPage);
  await app.register(outboxWorker);
  await app.register(attachmentSweeper);
  await app.register(writeSafetySweeper);
  await app.register(auditSweeper);
  await app.register(webhookWorker);
  await app.register(statisticsFold);
  await app.register(positionMaintenance);
  await app.register(liveStreams);

  const contract = loadContract();
  await app.register(openapiGlue, {
    specification: routeSpecification(),
    serviceHandlers: serviceHandlers(handlers, contract),
    securityHandlers,
  });
  return app;
}
