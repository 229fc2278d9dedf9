import { type Kysely, sql } from 'kysely';
import type { Transporter } from 'nodemailer';
import type { Database } from '../../db/schema.js';

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
 * Claims the due e-mails (oldest first; rows locked by another worker are skipped), counting the
 * attempt and taking a lease, in one statement.
 */
async function claimDue(db: Db, now: Date) {
  return db
    .updateTable('complaint_notifications')
    .set({ attempts: sql`attempts + 1`, next_attempt_at: new Date(now.getTime() + LEASE_MS) })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('complaint_notifications')
        .select('id')
        .where('status', '=', 'QUEUED')
        .where('channel', '=', 'EMAIL')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(BATCH)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'recipient', 'subject', 'body', 'attempts'])
    .execute();
}

/**
 * One round of the worker: sends every due e-mail through `mailer` and records the outcome.
 * A failure is retried later (see retryDelayMs) until `maxAttempts`, then the row is FAILED with
 * the last error. SMS rows wait: no SMS gateway is configured in this deployment.
 */
export async function processOutbox(db: Db, mailer: Transporter, options: OutboxOptions): Promise<OutboxRound> {
  const now = options.now ?? new Date();
  const round: OutboxRound = { sent: 0, retried: 0, failed: 0 };
  for (const row of await claimDue(db, now)) {
    try {
      await mailer.sendMail({ from: options.from, to: row.recipient, subject: row.subject ?? '', text: row.body });
      await db
        .updateTable('complaint_notifications')
        .set({ status: 'SENT', sent_at: new Date(), last_error: null })
        .where('id', '=', row.id)
        .execute();
      round.sent += 1;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const final = row.attempts >= options.maxAttempts;
      await db
        .updateTable('complaint_notifications')
        .set(
          final
            ? { status: 'FAILED', last_error: message }
            : { last_error: message, next_attempt_at: new Date(now.getTime() + retryDelayMs(row.attempts)) },
        )
        .where('id', '=', row.id)
        .execute();
      round[final ? 'failed' : 'retried'] += 1;
    }
  }
  return round;
}
