import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { processJob } from '../../lib/process-job.js';
import { maintainPositionPartitions } from '../../db/position-partitions.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Makes the position partitions from 7 days before `now` to 2 days after it, and drops those
     * past POSITION_RETENTION_DAYS. Runs once as the app starts (in the background) and then on its period;
     * tests call it with a clock of their own.
     */
    maintainPositionPartitions(now?: Date): Promise<{ made: number; dropped: string[] }>;
  }
}

export default fp(async function positionMaintenance(app: FastifyInstance) {
  const { retentionDays, maintenanceIntervalMs } = app.config.positions;
  const run = processJob(app, (now: Date = new Date()) => maintainPositionPartitions(app.db, now, retentionDays), {
    periodMs: maintenanceIntervalMs,
    background: (round) =>
      round()
        .then(({ made, dropped }) => {
          if (made > 0) app.log.info(`made ${made} position partitions ahead`);
          if (dropped.length > 0) app.log.info(`dropped position partitions past retention: ${dropped.join(', ')}`);
        })
        .catch((error: unknown) => app.log.warn({ err: error }, 'position partitions not maintained yet')),
  });
  app.decorate('maintainPositionPartitions', run);
  // A first round as the app starts, in the background: the start never waits for it (on a loaded
  // embedded database ten partitions can take seconds), and a point arriving before it is done, or
  // on a database that refused it, makes its own day partition (ingest.ts).
  app.addHook('onReady', async () => {
    run().catch((error: unknown) => app.log.warn({ err: error }, 'position partitions not made at start'));
  });
});
