import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { loadContract } from '../../contract.js';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../../lib/outage.js';
import { pingDatabase } from './repository.js';

const startedAt = Date.now();
/** The contract version this server implements (`info.version`). */
const version = String((loadContract().info as { version: string }).version);

type Check = { status: 'up' | 'down' | 'not_configured'; latencyMs: number | null; error?: string };

/** Runs one readiness check; one that takes longer than `timeoutMs` counts as down (a stalled dependency). */
async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<Check> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([probe(), timeout]);
    return { status: 'up', latencyMs: Math.round((performance.now() - started) * 100) / 100 };
  } catch (error) {
    return { status: 'down', latencyMs: null, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

export const systemHandlers: ModuleHandlers<'getHealth' | 'getReadiness'> = {
  async getHealth() {
    return {
      message: 'Service is alive',
      result: {
        status: 'ok',
        uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
        version,
        timestamp: new Date().toISOString(),
      },
    };
  },

  async getReadiness(req, reply) {
    const { db, redis, config } = req.server;
    const [database, cache] = await Promise.all([
      check(() => pingDatabase(db), config.readinessTimeoutMs),
      redis ? check(() => redis.ping(), config.readinessTimeoutMs) : Promise.resolve<Check>({ status: 'not_configured', latencyMs: null }),
    ]);
    if (database.status !== 'up') {
      req.log.warn({ error: database.error }, 'readiness: the database did not answer');
      reply.header('retry-after', String(OUTAGE_RETRY_AFTER_SECONDS));
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        { retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS, dependency: 'database' },
        'Database unavailable',
      );
    }
    const degraded = cache.status === 'down';
    return {
      message: degraded ? 'Service is ready, degraded' : 'Service is ready',
      result: { status: degraded ? 'degraded' : 'ready', checks: { database, redis: cache }, timestamp: new Date().toISOString() },
    };
  },
};
