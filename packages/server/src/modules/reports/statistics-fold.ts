import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { foldStatistics } from '../../lib/counters.js';
import { processJob } from '../../lib/process-job.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Folds the appended statistics rows into their totals now; returns how many totals changed (tests call it). */
    foldStatisticsOnce(): Promise<number>;
  }
}

/**
 * The fold of appended statistics (migration 0016): writers append rows instead of updating shared
 * totals, and this loop adds them to the totals every `statisticsFoldIntervalMs` (unref'd; 0
 * disables it), so reads stay a sum over few rows. Figures are exact whether or not it has run.
 */
export default fp(async function statisticsFold(app: FastifyInstance) {
  const run = processJob(app, () => foldStatistics(app.db), {
    periodMs: app.config.statisticsFoldIntervalMs,
    background: (round) =>
      round().catch((error: unknown) => app.log.warn({ err: error }, 'statistics not folded yet: retried next period')),
  });
  app.decorate('foldStatisticsOnce', run);
});
