import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../http/errors.js';

const ADMIN_LEVELS = new Set(['admin', 'super_admin']);

/**
 * Hourly quotas: per client address when unauthenticated, per user otherwise, higher for
 * administration roles. Counted in Redis when REDIS_URL is set, so instances share them.
 * The limiter is applied by the security plugin, after the caller is identified.
 */
export default fp(async function rateLimits(app: FastifyInstance) {
  const { anonymous, user, admin, windowMs } = app.config.rateLimit;
  const { redis } = app;
  await app.register(rateLimit, {
    global: false,
    timeWindow: windowMs,
    ...(redis ? { redis, nameSpace: `${app.config.redisPrefix}rate:` } : {}),
    keyGenerator: (req: FastifyRequest) => (req.auth ? `user:${req.auth.userId}` : `ip:${req.ip}`),
    max: async (req: FastifyRequest) => (!req.auth ? anonymous : ADMIN_LEVELS.has(req.auth.accessLevel) ? admin : user),
    errorResponseBuilder: (_req, context) =>
      new AppError(
        'RATE_LIMITED',
        { limit: context.max, retryAfterSeconds: Math.ceil(context.ttl / 1000) },
        `Rate limit exceeded, retry in ${Math.ceil(context.ttl / 1000)} seconds`,
      ),
  });
});
