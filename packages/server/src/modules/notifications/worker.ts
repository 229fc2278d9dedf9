import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import nodemailer from 'nodemailer';
import { type OutboxRound, processOutbox } from './outbox.js';

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
  let inFlight: Promise<OutboxRound> | null = null;

  app.decorate('processOutboxOnce', async (now?: Date) => {
    if (!mailer) return { sent: 0, retried: 0, failed: 0 };
    // One round at a time per process; a call during a round waits for it instead of starting another.
    while (inFlight) await inFlight.catch(() => undefined);
    inFlight = processOutbox(app.db, mailer, { from, maxAttempts, now });
    try {
      return await inFlight;
    } finally {
      inFlight = null;
    }
  });

  let timer: NodeJS.Timeout | null = null;
  app.addHook('onReady', async () => {
    if (!mailer || outboxIntervalMs === 0) return;
    timer = setInterval(() => {
      if (inFlight) return;
      app.processOutboxOnce().catch((error: unknown) => app.log.error({ err: error }, 'outbox round failed'));
    }, outboxIntervalMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await inFlight?.catch(() => undefined);
    mailer?.close();
  });
});
