import { randomBytes } from 'node:crypto';
import type { operations } from '@transport-ops/contract';
import { type Kysely, sql } from 'kysely';
import { type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { Database, EventType, WebhookDeliveryStatus } from '../../db/schema.js';

export type Db = Kysely<Database>;

/** A new signing secret: `whsec_` and 32 random bytes in base64 (the Standard Webhooks form). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const subscriptionColumns = [
  'id',
  'url',
  'description',
  'event_types',
  'is_active',
  'failing_since',
  'disabled_at',
  'disabled_reason',
  'created_at',
  'updated_at',
] as const;

export const listSubscriptions = (db: Db) =>
  db.selectFrom('webhook_subscriptions').select(subscriptionColumns).orderBy('created_at', 'desc').orderBy('id', 'desc');

/** The endpoint's current URL and creator (who may move it: modules/webhooks/handlers.ts). */
export const findSubscriptionOwner = (db: Db, id: number) =>
  db.selectFrom('webhook_subscriptions').select(['url', 'created_by']).where('id', '=', id).executeTakeFirst();

export const findSubscription = (db: Db, id: number) =>
  db.selectFrom('webhook_subscriptions').select(subscriptionColumns).where('id', '=', id).executeTakeFirst();

export const insertSubscription = (
  db: Db,
  values: {
    url: string;
    description: string | null;
    eventTypes: EventType[];
    isActive: boolean;
    sealed: { secret: string; secret_key_id: string };
    createdBy: number;
  },
) =>
  db
    .insertInto('webhook_subscriptions')
    .values({
      url: values.url,
      description: values.description,
      event_types: JSON.stringify(values.eventTypes),
      is_active: values.isActive,
      secret: values.sealed.secret,
      secret_key_id: values.sealed.secret_key_id,
      created_by: values.createdBy,
    })
    .returning(subscriptionColumns)
    .executeTakeFirstOrThrow();

export async function updateSubscription(
  db: Db,
  id: number,
  changes: {
    url?: string;
    description?: string | null;
    eventTypes?: EventType[];
    isActive?: boolean;
    sealed?: { secret: string; secret_key_id: string };
  },
) {
  const set: Record<string, unknown> = { updated_at: new Date() };
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.eventTypes !== undefined) set.event_types = JSON.stringify(changes.eventTypes);
  if (changes.sealed !== undefined) Object.assign(set, changes.sealed);
  if (changes.isActive !== undefined) {
    set.is_active = changes.isActive;
    // Enabled again by a person: the failure record starts over.
    if (changes.isActive) Object.assign(set, { disabled_at: null, disabled_reason: null, failing_since: null });
  }
  return db.updateTable('webhook_subscriptions').set(set).where('id', '=', id).returning(subscriptionColumns).executeTakeFirst();
}

export const deleteSubscription = async (db: Db, id: number) =>
  (await db.deleteFrom('webhook_subscriptions').where('id', '=', id).returning('id').executeTakeFirst()) !== undefined;

export const hasActiveSubscription = async (db: Db) =>
  (await db.selectFrom('webhook_subscriptions').select('id').where('is_active', '=', true).limit(1).executeTakeFirst()) !== undefined;

const deliveryColumns = [
  'd.id',
  'd.subscription_id',
  'e.public_id as event_id',
  'e.type as event_type',
  'd.status',
  'd.attempts',
  'd.response_status',
  'd.latency_ms',
  'd.last_error',
  'd.last_attempt_at',
  'd.next_attempt_at',
  'd.delivered_at',
  'd.created_at',
] as const;

const deliveriesFrom = (db: Db) =>
  db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id').select(deliveryColumns);

/** The query parameters of an endpoint's delivery list, as the contract declares them. */
export type DeliveryListParameters = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;

/**
 * Each filter of an endpoint's delivery list, declared once (lib/filter-spec.ts). Typed from the
 * contract: a query parameter of `listWebhookDeliveries` with no entry here (and not a paging one)
 * is a type error.
 */
export const DELIVERY_FILTERS: FilterSpecs<DeliveryListParameters, WhereOf<ReturnType<typeof deliveriesFrom>>> = {
  status: { bind: same, where: (eb, v) => eb('d.status', '=', v as WebhookDeliveryStatus), columns: ['d.status'] },
};
const DELIVERY_FILTER = filters(DELIVERY_FILTERS);

export function listDeliveries(db: Db, subscriptionId: number, f: DeliveryListParameters) {
  const query = deliveriesFrom(db).where('d.subscription_id', '=', subscriptionId);
  return DELIVERY_FILTER.apply(query, DELIVERY_FILTER.bind(f, {})).orderBy('d.id', 'desc');
}
export type DeliveryRow = Awaited<ReturnType<ReturnType<typeof listDeliveries>['execute']>>[number];

/**
 * Queues `eventId` again for the given endpoints: a new delivery, or the existing one started
 * over (PENDING, due now, no attempts, a new 3-day window). Returns the deliveries.
 */
export async function requeue(db: Db, eventId: number, subscriptionIds: number[]): Promise<DeliveryRow[]> {
  if (subscriptionIds.length === 0) return [];
  // One transaction: the rows are read as queued, before a worker (which skips the locked rows
  // until the COMMIT) can claim them.
  return db.transaction().execute(async (trx) => {
    const ids = await trx
      .insertInto('webhook_deliveries')
      .values(subscriptionIds.map((subscription_id) => ({ event_id: eventId, subscription_id })))
      .onConflict((oc) =>
        oc.columns(['event_id', 'subscription_id']).doUpdateSet({
          status: 'PENDING',
          attempts: 0,
          next_attempt_at: sql`clock_timestamp()`,
          created_at: sql`clock_timestamp()`,
          delivered_at: null,
        }),
      )
      .returning('id')
      .execute();
    return trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select(deliveryColumns)
      .where(
        'd.id',
        'in',
        ids.map((r) => r.id),
      )
      .orderBy('d.subscription_id')
      .execute();
  });
}

// ------------------------------------------------------------------ the delivery worker's statements

export interface ClaimedDelivery {
  id: number;
  attempts: number;
  created_at: Date;
  subscription_id: number;
  url: string;
  /** Sealed (modules/webhooks/secrets.ts): opened only to sign. */
  secret: string;
  secret_key_id: string | null;
  event_public_id: string;
  body: string;
  /** The endpoint had a run of failures when the delivery was claimed. */
  failing: boolean;
  /** Seconds from the moment it became due (queued by its write, or its retry time) to its claim. */
  waited: number;
}

/**
 * Claims up to `batch` due deliveries of active endpoints, oldest due first (rows another worker
 * holds are skipped: FOR UPDATE SKIP LOCKED), counting the attempt and taking a lease of `leaseMs`,
 * in one statement; returns each with its endpoint and its event's JSON body. A worker that dies
 * mid-attempt leaves the delivery due again when the lease ends.
 * "Due" is read on the database's clock, the clock that stamped `next_attempt_at` (a delivery is
 * due from its insertion, `clock_timestamp()`, to the microsecond): compared with this process's
 * millisecond clock instead, a delivery queued in the same millisecond as the claim that follows
 * its commit was not yet due, and waited for the next write or poll. `now` (tests) replaces it.
 */
export async function claimDue(db: Db, now: Date | null, leaseMs: number, batch: number): Promise<ClaimedDelivery[]> {
  const { rows } = await sql<ClaimedDelivery>`
    with clock as (select coalesce(${now}::timestamptz, clock_timestamp()) as now),
    due as (
      select d.id, d.next_attempt_at as due_at from webhook_deliveries d
      join webhook_subscriptions s on s.id = d.subscription_id and s.is_active
      where d.status = 'PENDING' and d.next_attempt_at <= (select now from clock)
      order by d.next_attempt_at, d.id
      limit ${batch}
      for update of d skip locked
    ), claimed as (
      update webhook_deliveries d set attempts = d.attempts + 1,
        next_attempt_at = (select now from clock) + make_interval(secs => ${leaseMs / 1000})
      from due where d.id = due.id
      returning d.id, d.attempts, d.created_at, d.subscription_id, d.event_id,
        extract(epoch from (select now from clock) - due.due_at)::float8 as waited
    )
    select c.id, c.attempts, c.created_at, c.subscription_id, s.url, s.secret, s.secret_key_id, e.public_id as event_public_id,
      s.failing_since is not null as failing, c.waited,
      json_build_object('id', e.public_id, 'type', e.type,
        'occurredAt', to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'resource', json_build_object('type', e.resource_type, 'id', e.resource_id), 'data', e.data)::text as body
    from claimed c
    join webhook_subscriptions s on s.id = c.subscription_id
    join events e on e.id = c.event_id
    order by c.id`.execute(db);
  return rows;
}

/** A 2xx: delivered; the endpoint is healthy again (one statement more only when it had failures). */
export async function markDelivered(db: Db, d: ClaimedDelivery, status: number, latencyMs: number, at: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'SUCCEEDED', response_status: status, latency_ms: latencyMs, last_error: null, last_attempt_at: at, delivered_at: at })
    .where('id', '=', d.id)
    .execute();
  if (!d.failing) return;
  await db
    .updateTable('webhook_subscriptions')
    .set({ failing_since: null })
    .where('id', '=', d.subscription_id)
    .where('failing_since', 'is not', null)
    .execute();
}

/**
 * A failed attempt: due again at `retryAt`, or FAILED when `retryAt` is null (its window is over).
 * The endpoint's run of failures starts now unless it already had one; returns when it started.
 */
export async function markFailed(
  db: Db,
  d: ClaimedDelivery,
  outcome: { status: number | null; latencyMs: number; error: string | null },
  at: Date,
  retryAt: Date | null,
): Promise<Date | null> {
  await db
    .updateTable('webhook_deliveries')
    .set(
      Object.assign(
        { response_status: outcome.status, latency_ms: outcome.latencyMs, last_error: outcome.error, last_attempt_at: at },
        retryAt === null ? { status: 'FAILED' as const } : { next_attempt_at: retryAt },
      ),
    )
    .where('id', '=', d.id)
    .execute();
  const row = await db
    .updateTable('webhook_subscriptions')
    .set({ failing_since: sql`coalesce(failing_since, ${at})` })
    .where('id', '=', d.subscription_id)
    .returning(['failing_since', 'is_active'])
    .executeTakeFirst();
  return row?.is_active ? (row.failing_since ?? null) : null;
}

/** Disables an endpoint that kept failing; false when it was already inactive (another worker got there first). */
export async function disableSubscription(db: Db, id: number, reason: string, at: Date) {
  return db
    .updateTable('webhook_subscriptions')
    .set({ is_active: false, disabled_at: at, disabled_reason: reason, updated_at: at })
    .where('id', '=', id)
    .where('is_active', '=', true)
    .returning(subscriptionColumns)
    .executeTakeFirst();
}

/** An e-mail to every active administrator (sent by the notification worker). */
export async function notifyAdministrators(db: Db, subject: string, body: string): Promise<void> {
  await db
    .insertInto('admin_notifications')
    .columns(['recipient', 'subject', 'body'])
    .expression(
      db
        .selectFrom('users as u')
        .innerJoin('roles as r', 'r.id', 'u.role_id')
        .select(['u.email', sql<string>`${subject}::text`.as('subject'), sql<string>`${body}::text`.as('body')])
        .where('u.is_active', '=', true)
        .where('r.access_level', 'in', ['admin', 'super_admin']),
    )
    .execute();
}

/** Removes the events older than `before` (their deliveries go with them). */
export async function sweepEvents(db: Db, before: Date): Promise<number> {
  const rows = await db.deleteFrom('events').where('occurred_at', '<', before).returning('id').execute();
  return rows.length;
}

/**
 * The delivery backlog, read when metrics are scraped: deliveries pending (due now or later), those
 * due now, the age of the oldest pending one (since it was queued) and how late the oldest due one
 * is. One range of the partial index of pending deliveries.
 */
export async function deliveryBacklog(db: Db) {
  const { rows } = await sql<{ pending: number; due: number; oldest_age: number | null; oldest_due_lateness: number | null }>`
    select count(*)::int as pending,
      (count(*) filter (where next_attempt_at <= clock_timestamp()))::int as due,
      extract(epoch from clock_timestamp() - min(created_at))::float8 as oldest_age,
      extract(epoch from clock_timestamp() - min(next_attempt_at) filter (where next_attempt_at <= clock_timestamp()))::float8 as oldest_due_lateness
    from webhook_deliveries where status = 'PENDING'`.execute(db);
  const row = rows[0]!;
  return { pending: row.pending, due: row.due, oldestAge: row.oldest_age ?? 0, oldestDueLateness: row.oldest_due_lateness ?? 0 };
}
