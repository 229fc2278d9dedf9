import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../lib/errors.js';
import { metrics } from '../lib/metrics.js';
import { fallbackStore } from './rate-limit-store.js';

const ADMIN_LEVELS = new Set(['admin', 'super_admin']);
/**
 * Probes of load balancers and orchestrators: never limited, counted against no quota (the
 * security plugin leaves the limiter off their routes).
 */
export const UNLIMITED: ReadonlySet<string> = new Set(['/health', '/ready']);

/**
 * Hourly quotas: per client address when unauthenticated, per user otherwise, higher for
 * administration roles. Public operations are always counted per address: the security plugin
 * does not identify their callers, so a token cannot move them onto a user's quota. Counted in Redis when REDIS_URL is set, so instances share them; in this
 * process's memory while Redis is unreachable. The limiter is applied by the security plugin,
 * after the caller is identified.
 */
export default fp(async function rateLimits(app: FastifyInstance) {
  const { anonymous, user, admin, windowMs } = app.config.rateLimit;
  const { redis } = app;
  await app.register(rateLimit, {
    global: false,
    timeWindow: windowMs,
    ...(redis ? { store: fallbackStore(redis, `${app.config.redisPrefix}rate:`) as unknown as FastifyRateLimitStoreCtor } : {}),
    skipOnError: true,
    keyGenerator: (req: FastifyRequest) => (req.auth ? `user:${req.auth.userId}` : `ip:${req.ip}`),
    max: (req: FastifyRequest) => (!req.auth ? anonymous : ADMIN_LEVELS.has(req.auth.accessLevel) ? admin : user),
    errorResponseBuilder: (_req, context) => {
      metrics.rateLimitRefusals.inc();
      return new AppError(
        'RATE_LIMITED',
        { limit: context.max, retryAfterSeconds: Math.ceil(context.ttl / 1000) },
        `Rate limit exceeded, retry in ${Math.ceil(context.ttl / 1000)} seconds`,
      );
    },
  });
});
