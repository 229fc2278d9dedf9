import type { operations } from '@transport-ops/contract';
import { type Kysely, sql } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { queryShape } from '../../lib/query-shape.js';
import type { ComplaintNotification, Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** The query parameters of the outbox list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listNotifications']['parameters']['query']>;

const outboxFrom = (db: Db) => db.selectFrom('complaint_notifications').selectAll();

/**
 * Each filter of the outbox list, declared once (lib/filter-spec.ts). Typed from the contract: a
 * query parameter of `listNotifications` with no entry here (and not a paging one) is a type error.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof outboxFrom>>> = {
  status: { bind: same, where: (eb, v) => eb('status', '=', v as ComplaintNotification['status']), columns: ['status'] },
  channel: { bind: same, where: (eb, v) => eb('channel', '=', v as ComplaintNotification['channel']), columns: ['channel'] },
};
const FILTER = filters(FILTERS);

/** The outbox, newest first, as a query shape (lib/query-shape.ts): compiled once per combination of filters. */
const notificationList = queryShape({ values: FILTER.values, structure: FILTER.structure }, (db, p: BoundFilters<ListParameters>) =>
  FILTER.apply(outboxFrom(db), p).orderBy('created_at', 'desc').orderBy('id', 'desc'),
);

export function listQuery(f: ListParameters) {
  return notificationList.with(FILTER.bind(f, {}));
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

/** The e-mail outbox's backlog (customers' and administrators' e-mails queued), read when metrics are scraped. */
export async function outboxBacklog(db: Db) {
  const { rows } = await sql<{ queued: number; oldest_age: number | null }>`
    select sum(n)::int as queued, extract(epoch from clock_timestamp() - min(oldest))::float8 as oldest_age from (
      select count(*) as n, min(created_at) as oldest from complaint_notifications where status = 'QUEUED' and channel = 'EMAIL'
      union all
      select count(*), min(created_at) from admin_notifications where status = 'QUEUED'
    ) q`.execute(db);
  const row = rows[0]!;
  return { queued: row.queued ?? 0, oldestAge: row.oldest_age ?? 0 };
}
