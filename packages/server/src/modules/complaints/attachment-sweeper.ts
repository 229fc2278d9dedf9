import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { processJob } from '../../lib/process-job.js';
import { deleteUnlinkedAttachments } from './attachment-repository.js';

/** Uploads never attached to a complaint are removed once this old (the upload operation says so). */
export const UNLINKED_ATTACHMENT_MAX_AGE_MS = 24 * 3600_000;
const BATCH = 500;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Removes the complaint attachments uploaded before `now` minus `maxAgeMs` (default 24 h) and
     * never linked to a complaint, with their files; returns how many rows went. The background
     * loop calls it on its period; tests call it directly with a clock of their own.
     */
    sweepUnlinkedAttachments(now?: Date, maxAgeMs?: number): Promise<number>;
  }
}

/**
 * The sweep of old pending uploads: rows deleted in batches (their files are queued by the
 * database in the same transaction), then the queued files removed by the file store. A loop on
 * `attachmentSweepIntervalMs` (unref'd; 0, as in tests, disables it) runs it after the app is ready.
 */
export default fp(async function attachmentSweeper(app: FastifyInstance) {
  async function sweep(now = new Date(), maxAgeMs = UNLINKED_ATTACHMENT_MAX_AGE_MS): Promise<number> {
    const before = new Date(now.getTime() - maxAgeMs);
    let removed = 0;
    for (let n = BATCH; n === BATCH; removed += n) n = await deleteUnlinkedAttachments(app.db, before, BATCH);
    // A full batch of queued files means more may be queued.
    if (removed > 0) while ((await app.files.sweep(app.db)) === BATCH);
    return removed;
  }

  const run = processJob(app, sweep, {
    periodMs: app.config.attachmentSweepIntervalMs,
    background: (round) =>
      round()
        .then((n) => n > 0 && app.log.info(`removed ${n} complaint attachments never linked to a complaint`))
        .catch((error: unknown) => app.log.warn({ err: error }, 'old unlinked complaint attachments not removed yet')),
  });
  app.decorate('sweepUnlinkedAttachments', run);
});
