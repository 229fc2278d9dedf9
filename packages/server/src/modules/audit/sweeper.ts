import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { processJob } from '../../lib/process-job.js';
import { deleteEntriesBefore } from './repository.js';

const BATCH = 1000;
const DAY_MS = 86_400_000;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Removes the audit log entries older than the retention (`AUDIT_RETENTION_DAYS` before
     * `now`); returns how many went. The background loop calls it on its period; tests call it
     * directly with a clock of their own.
     */
    sweepAuditLog(now?: Date): Promise<number>;
  }
}

/** The audit log's retention: a loop on `audit.sweepIntervalMs` (0, as in tests, disables it). */
export default fp(async function auditSweeper(app: FastifyInstance) {
  async function sweep(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - app.config.audit.retentionDays * DAY_MS);
    let removed = 0;
    for (let n = BATCH; n === BATCH; removed += n) n = await deleteEntriesBefore(app.db, cutoff, BATCH);
    return removed;
  }
  const run = processJob(app, sweep, {
    periodMs: app.config.audit.sweepIntervalMs,
    background: (round) =>
      round()
        .then((n) => n > 0 && app.log.info(`removed ${n} audit log entries past their retention`))
        .catch((error: unknown) => app.log.warn({ err: error }, 'audit log entries past their retention not removed yet')),
  });
  app.decorate('sweepAuditLog', run);
});
