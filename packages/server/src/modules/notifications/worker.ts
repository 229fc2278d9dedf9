import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import nodemailer from 'nodemailer';
import { processJob } from '../../lib/process-job.js';
import { type OutboxRound, processOutbox } from './outbox.js';
import { outboxBacklog } from './repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Runs one delivery round of the notification outbox now (the background loop calls it on
     * its period; tests call it directly). Nothing is sent, and nothing changes, without SMTP_URL.
     */
    processOutboxOnce(now?: Date): Promise<OutboxRound>;
  }
}

/**
 * The outbox worker: an SMTP transport when SMTP_URL is set, and a loop started when the app is
 * ready and stopped (after the round in flight) when it closes.
 */
export default fp(async function outboxWorker(app: FastifyInstance) {
  const { smtpUrl, from, maxAttempts, outboxIntervalMs } = app.config.mail;
  const mailer = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  const run = processJob(
    app,
    (now?: Date) =>
      mailer ? processOutbox(app.db, mailer, { from, maxAttempts, now }) : Promise.resolve({ sent: 0, retried: 0, failed: 0 }),
    {
      periodMs: mailer ? outboxIntervalMs : 0,
      background: (round) => round().catch((error: unknown) => app.log.error({ err: error }, 'outbox round failed')),
      closed: () => mailer?.close(),
    },
  );
  app.decorate('processOutboxOnce', run);
  app.scrapeGauge(
    {
      queued: { name: 'email_outbox_queued', help: 'E-mails queued in the outbox (customers and administrators)' },
      oldestAge: { name: 'email_outbox_oldest_queued_age_seconds', help: 'Age of the oldest queued e-mail' },
    },
    () => outboxBacklog(app.db),
  );
});
