import { type Kysely, sql } from 'kysely';
import { queryShape } from '../../lib/query-shape.js';
import type { ComplaintNotification, Database } from '../../db/schema.js';

type Db = Kysely<Database>;

type ListFilters = { status?: ComplaintNotification['status'] | undefined; channel?: ComplaintNotification['channel'] | undefined };

/** The outbox, newest first, as a query shape (lib/query-shape.ts): compiled once per combination of filters. */
const notificationList = queryShape({ values: ['status', 'channel'] }, (db, f: ListFilters) => {
  let query = db.selectFrom('complaint_notifications').selectAll();
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.channel !== undefined) query = query.where('channel', '=', f.channel);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc');
});

export function listQuery(f: ListFilters) {
  return notificationList.with({ status: f.status, channel: f.channel });
}

/**
 * Claims the due e-mails (oldest first; rows locked by another worker are skipped), counting the
 * attempt and taking a lease, in one statement.
 */
export async function claimDue(db: Db, now: Date, leaseMs: number, batch: number) {
  return db
    .updateTable('complaint_notifications')
    .set({ attempts: sql`attempts + 1`, next_attempt_at: new Date(now.getTime() + leaseMs) })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('complaint_notifications')
        .select('id')
        .where('status', '=', 'QUEUED')
        .where('channel', '=', 'EMAIL')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'recipient', 'subject', 'body', 'attempts'])
    .execute();
}

export async function markSent(db: Db, id: number): Promise<void> {
  await db
    .updateTable('complaint_notifications')
    .set({ status: 'SENT', sent_at: new Date(), last_error: null })
    .where('id', '=', id)
    .execute();
}

/** Records a failed attempt: FAILED when it was the last, else due again at `retryAt`. */
export async function markAttemptFailed(db: Db, id: number, error: string, retryAt: Date | null): Promise<void> {
  await db
    .updateTable('complaint_notifications')
    .set(retryAt === null ? { status: 'FAILED', last_error: error } : { last_error: error, next_attempt_at: retryAt })
    .where('id', '=', id)
    .execute();
}

/** The administrators' e-mails (an endpoint disabled, migration 0015), claimed like the customers' ones. */
export async function claimDueAdmin(db: Db, now: Date, leaseMs: number, batch: number) {
  return db
    .updateTable('admin_notifications')
    .set({ attempts: sql`attempts + 1`, next_attempt_at: new Date(now.getTime() + leaseMs) })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('admin_notifications')
        .select('id')
        .where('status', '=', 'QUEUED')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'recipient', 'subject', 'body', 'attempts'])
    .execute();
}

export async function markAdminOutcome(
  db: Db,
  id: number,
  outcome: { sent: true } | { error: string; retryAt: Date | null },
): Promise<void> {
  await db
    .updateTable('admin_notifications')
    .set(
      'sent' in outcome
        ? { status: 'SENT', sent_at: new Date(), last_error: null }
        : outcome.retryAt === null
          ? { status: 'FAILED', last_error: outcome.error }
          : { last_error: outcome.error, next_attempt_at: outcome.retryAt },
    )
    .where('id', '=', id)
    .execute();
}
