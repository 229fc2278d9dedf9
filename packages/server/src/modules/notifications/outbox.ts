import type { Kysely } from 'kysely';
import type { Transporter } from 'nodemailer';
import type { Database } from '../../db/schema.js';
import { metrics } from '../../lib/metrics.js';
import { claimDue, claimDueAdmin, markAdminOutcome, markAttemptFailed, markSent } from './repository.js';

/*
 * The outbox: notifications are rows written in the same transaction as the change they report
 * (complaint_notifications), and a worker delivers them afterwards. Everything lives in the
 * database, so nothing is lost on a restart: a row claimed by a process that died before it
 * finished becomes due again when its lease ends (delivery is at least once).
 */

type Db = Kysely<Database>;

/** How long a claimed row is reserved for the process that claimed it. */
const LEASE_MS = 5 * 60_000;
/** Rows claimed per round. */
const BATCH = 20;
/** Wait before the next attempt after `attempts` failures: 30 s, 2 min, 4.5 min, 8 min... */
export const retryDelayMs = (attempts: number) => 30_000 * attempts * attempts;

export interface OutboxRound {
  sent: number;
  retried: number;
  failed: number;
}

export interface OutboxOptions {
  from: string;
  maxAttempts: number;
  /** The clock of this round (tests pass a later one to make retries due). */
  now?: Date;
}

/**
 * One round of the worker: sends every due e-mail through `mailer` and records the outcome.
 * A failure is retried later (see retryDelayMs) until `maxAttempts`, then the row is FAILED with
 * the last error. SMS rows wait: no SMS gateway is configured in this deployment.
 */
export async function processOutbox(db: Db, mailer: Transporter, options: OutboxOptions): Promise<OutboxRound> {
  const now = options.now ?? new Date();
  const round: OutboxRound = { sent: 0, retried: 0, failed: 0 };
  for (const row of await claimDue(db, now, LEASE_MS, BATCH)) {
    try {
      await mailer.sendMail({ from: options.from, to: row.recipient, subject: row.subject ?? '', text: row.body });
      await markSent(db, row.id);
      round.sent += 1;
      metrics.outboxAttempt('sent');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const final = row.attempts >= options.maxAttempts;
      await markAttemptFailed(db, row.id, message, final ? null : new Date(now.getTime() + retryDelayMs(row.attempts)));
      round[final ? 'failed' : 'retried'] += 1;
      metrics.outboxAttempt(final ? 'failed' : 'retried');
    }
  }
  // Then the administrators' e-mails (a webhook endpoint disabled), with the same retries.
  for (const row of await claimDueAdmin(db, now, LEASE_MS, BATCH)) {
    try {
      await mailer.sendMail({ from: options.from, to: row.recipient, subject: row.subject, text: row.body });
      await markAdminOutcome(db, row.id, { sent: true });
      round.sent += 1;
      metrics.outboxAttempt('sent');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const final = row.attempts >= options.maxAttempts;
      await markAdminOutcome(db, row.id, { error: message, retryAt: final ? null : new Date(now.getTime() + retryDelayMs(row.attempts)) });
      round[final ? 'failed' : 'retried'] += 1;
      metrics.outboxAttempt(final ? 'failed' : 'retried');
    }
  }
  return round;
}
