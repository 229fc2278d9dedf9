import { type Kysely, sql } from 'kysely';
import type { Database, LiveEventType } from '../../db/schema.js';

type Db = Kysely<Database>;

export interface LiveEventRow {
  id: number;
  transport_id: number;
  type: LiveEventType;
  data: unknown;
}

/**
 * Appends events to a transport's live stream, in the caller's transaction (they exist if and
 * only if it commits). The table's trigger (0028) orders them along the transport and notifies
 * every instance at commit. Call it after the transport's row lock, if the transaction takes one.
 */
export async function appendLiveEvents(
  trx: Db,
  transportId: number,
  events: readonly { type: LiveEventType; data: unknown }[],
): Promise<void> {
  if (events.length === 0) return;
  await trx
    .insertInto('transport_live_events')
    // The id is the trigger's: the placeholder is replaced before the row is stored.
    .values(events.map((e) => ({ id: 0, transport_id: transportId, type: e.type, data: JSON.stringify(e.data) })) as never)
    .execute();
}

/** The events of `transportId` after id `after`, oldest first, at most `limit`. */
export async function liveEventsAfter(db: Db, transportId: number, after: number, limit: number): Promise<LiveEventRow[]> {
  return db
    .selectFrom('transport_live_events')
    .select(['id', 'transport_id', 'type', 'data'])
    .where('transport_id', '=', transportId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute() as Promise<LiveEventRow[]>;
}

export interface StreamStart {
  /** The newest committed event of the transport, null when it has none retained. */
  latest: number | null;
  /** The greatest id swept: a resume point below it may have lost events. */
  sweptThrough: number;
  /** The greatest id the sequence has given (0 before the first): a resume point above it was never issued here. */
  issued: number;
}

/** Where a transport's stream stands, in one statement (one snapshot). */
export async function streamStart(db: Db, transportId: number): Promise<StreamStart> {
  const { rows } = await sql<StreamStart>`
    select
      (select max(id) from transport_live_events where transport_id = ${transportId})::bigint as latest,
      (select swept_through from transport_live_sweeps)::bigint as "sweptThrough",
      (select case when is_called then last_value else 0 end from transport_live_events_id_seq)::bigint as issued`.execute(db);
  const row = rows[0]!;
  return { latest: row.latest === null ? null : Number(row.latest), sweptThrough: Number(row.sweptThrough), issued: Number(row.issued) };
}

/**
 * Deletes the events written before `cutoff` (by id: every id up to the newest such event) and
 * records the greatest id swept. Returns how many were deleted.
 */
export async function sweepLiveEvents(db: Db, cutoff: Date): Promise<number> {
  const { rows } = await sql<{ deleted: number }>`
    with edge as (
      select max(id) as id from transport_live_events where created_at < ${cutoff}
    ), gone as (
      delete from transport_live_events where id <= (select id from edge) returning 1
    ), mark as (
      update transport_live_sweeps set swept_through = greatest(swept_through, (select id from edge))
      where (select id from edge) is not null
    )
    select count(*)::int as deleted from gone`.execute(db);
  return rows[0]?.deleted ?? 0;
}

/** The first key of the advisory lock on a user's leases (the second is the user id): 'live' in ASCII. */
const LEASE_LOCK = 0x6c697665;

/**
 * Takes a lease for one more stream of `userId`, valid `ttlMs`, if the user holds fewer than
 * `limit` unexpired leases on all instances; null otherwise. Under a transaction-level advisory
 * lock on the user, so that two instances cannot both take the last place; the user's expired
 * leases (of a crashed instance) are deleted on the way.
 */
export async function takeLiveLease(db: Db, userId: number, instance: string, limit: number, ttlMs: number): Promise<number | null> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LEASE_LOCK}::int, ${userId}::int)`.execute(trx);
    await trx.deleteFrom('live_stream_leases').where('user_id', '=', userId).where('expires_at', '<=', sql<Date>`now()`).execute();
    const { n } = await trx
      .selectFrom('live_stream_leases')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    if (Number(n) >= limit) return null;
    const row = await trx
      .insertInto('live_stream_leases')
      .values({ user_id: userId, instance, expires_at: sql<Date>`now() + ${ttlMs}::int * interval '1 millisecond'` })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  });
}

/**
 * Extends the leases `ids` by `ttlMs` from now and returns those extended: a lease already
 * expired (its instance stalled past it: another may have taken the place) or deleted is not
 * brought back. Also deletes every expired lease (of instances that crashed).
 */
export async function renewLiveLeases(db: Db, ids: readonly number[], ttlMs: number): Promise<Set<number>> {
  const renewed =
    ids.length === 0
      ? []
      : await db
          .updateTable('live_stream_leases')
          .set({ expires_at: sql<Date>`now() + ${ttlMs}::int * interval '1 millisecond'` })
          .where('id', 'in', ids)
          .where('expires_at', '>', sql<Date>`now()`)
          .returning('id')
          .execute();
  await db.deleteFrom('live_stream_leases').where('expires_at', '<=', sql<Date>`now()`).execute();
  return new Set(renewed.map((r) => Number(r.id)));
}

/** Gives leases back: the ones listed, or (`instance`) every lease of an instance that shuts down. */
export async function releaseLiveLeases(db: Db, which: { ids: readonly number[] } | { instance: string }): Promise<void> {
  if ('ids' in which) {
    if (which.ids.length > 0) await db.deleteFrom('live_stream_leases').where('id', 'in', which.ids).execute();
  } else {
    await db.deleteFrom('live_stream_leases').where('instance', '=', which.instance).execute();
  }
}
