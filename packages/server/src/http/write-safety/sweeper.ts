import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { processJob } from '../../lib/process-job.js';
import { deleteExpiredKeys } from './repository.js';

const BATCH = 1000;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Removes the idempotency keys that expired before `now` (24 h after their first request) and
     * resource locks whose lease ended; returns how many keys went. The background loop calls it
     * on its period; tests call it directly with a clock of their own.
     */
    sweepIdempotencyKeys(now?: Date): Promise<number>;
  }
}

/** The sweep of expired idempotency keys: a loop on `idempotencySweepIntervalMs` (0, as in tests, disables it). */
export default fp(async function writeSafetySweeper(app: FastifyInstance) {
  async function sweep(now = new Date()): Promise<number> {
    let removed = 0;
    for (let n = BATCH; n === BATCH; removed += n) n = await deleteExpiredKeys(app.db, now, BATCH);
    return removed;
  }
  const run = processJob(app, sweep, {
    periodMs: app.config.idempotencySweepIntervalMs,
    background: (round) =>
      round()
        .then((n) => n > 0 && app.log.info(`removed ${n} expired idempotency keys`))
        .catch((error: unknown) => app.log.warn({ err: error }, 'expired idempotency keys not removed yet')),
  });
  app.decorate('sweepIdempotencyKeys', run);
});
