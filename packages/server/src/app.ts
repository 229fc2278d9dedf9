import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import { loadContract } from './contract.js';
import type { Database } from './db/schema.js';
import { serviceHandlers } from './http/bind.js';
import { type Bus, memoryBus, redisBus } from './lib/bus.js';
import { createSessionGuard, type SessionGuard } from './modules/auth/sessions.js';
import { createTokens, type Tokens } from './modules/auth/tokens.js';
import { handlers } from './modules/index.js';
import outboxWorker from './modules/notifications/worker.js';
import database from './plugins/database.js';
import docs from './plugins/docs.js';
import errors from './plugins/errors.js';
import rateLimits from './plugins/rate-limit.js';
import security, { securityHandlers } from './plugins/security.js';
import serialization from './plugins/serialization.js';
import uploads from './plugins/uploads.js';
import validation from './plugins/validation.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    tokens: Tokens;
    bus: Bus;
    sessions: SessionGuard;
    /** Shared Redis client when REDIS_URL is set (rate limits, caches); null otherwise. */
    redis: Redis | null;
  }
}

export interface BuildOptions {
  /** Use this database instead of opening one from the configuration (tests). */
  db?: Kysely<Database>;
}

/** Builds the whole API as a Fastify instance (not listening): `server.ts` starts it, tests `inject` into it. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel, redact: ['req.headers.authorization'] },
    bodyLimit: config.jsonBodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
    trustProxy: config.nodeEnv === 'production',
  });
  app.decorate('config', config);
  app.decorate('tokens', createTokens(config.jwt));
  const redis = config.redisUrl ? new Redis(config.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1 }) : null;
  app.decorate('redis', redis);
  if (redis) app.addHook('onClose', async () => void (await redis.quit()));
  const bus = config.redisUrl ? await redisBus(config.redisUrl, `${config.redisPrefix}bus:`) : memoryBus();
  app.decorate('bus', bus);
  app.addHook('onClose', async () => bus.close());
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  // The error handler must be in place before glue registers the routes.
  await app.register(errors);
  await app.register(serialization);
  await app.register(validation);
  await app.register(database, { db: options.db });
  app.decorate('sessions', createSessionGuard(app.db, bus));
  await app.register(rateLimits);
  await app.register(security);
  await app.register(uploads);
  await app.register(docs);
  await app.register(outboxWorker);

  const contract = loadContract();
  await app.register(openapiGlue, {
    specification: contract,
    serviceHandlers: serviceHandlers(handlers, contract),
    securityHandlers,
  });
  return app;
}
