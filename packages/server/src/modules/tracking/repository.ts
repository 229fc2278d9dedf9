import type { components } from '@transport-ops/contract';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { RECENT_WINDOW_MS } from './geo.js';

export type Db = Kysely<Database>;
type PositionInput = components['schemas']['TransportPositionInput'];

export interface PositionRow {
  recorded_at: Date;
  latitude: number;
  longitude: number;
  speed_kmh: number | null;
  heading_deg: number | null;
  accuracy_m: number | null;
}

/** What tracking reads of a transport: its status, points, windows and newest position (one statement). */
export function trackingRow(db: Db, transportId: number) {
  return db
    .selectFrom('transports as t')
    .leftJoin('transport_last_positions as l', 'l.transport_id', 't.id')
    .select([
      't.id',
      't.status',
      't.unloading_latitude',
      't.unloading_longitude',
      't.loading_window_start',
      't.loading_window_end',
      't.unloading_window_start',
      't.unloading_window_end',
      'l.recorded_at',
      'l.latitude',
      'l.longitude',
      'l.speed_kmh',
      'l.heading_deg',
      'l.accuracy_m',
      'l.eta_announced_at',
    ])
    .where('t.id', '=', transportId)
    .executeTakeFirst();
}
export type TrackingRow = NonNullable<Awaited<ReturnType<typeof trackingRow>>>;

/**
 * The points of the RECENT_WINDOW_MS up to `last` (inclusive): an index range of the primary key
 * in the partitions of that half hour only (the bounds are constants at planning time).
 */
export function recentPositions(db: Db, transportId: number, last: Date) {
  return db
    .selectFrom('transport_positions')
    .select(['recorded_at', 'latitude', 'longitude', 'speed_kmh'])
    .where('transport_id', '=', transportId)
    .where('recorded_at', '>=', new Date(last.getTime() - RECENT_WINDOW_MS))
    .where('recorded_at', '<=', last)
    .orderBy('recorded_at')
    .execute();
}

/** The transport's newest milestone and its arrival at the unloading point (latest ARRIVED_AT_UNLOADING, else UNLOADED). */
export async function milestoneSummary(db: Db, transportId: number) {
  const last = await db
    .selectFrom('transport_milestones')
    .selectAll()
    .where('transport_id', '=', transportId)
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!last) return { last: undefined, arrivedAt: null };
  const arrival = await db
    .selectFrom('transport_milestones')
    .select([
      sql<Date | null>`max(occurred_at) filter (where type = 'ARRIVED_AT_UNLOADING')`.as('arrived'),
      sql<Date | null>`max(occurred_at) filter (where type = 'UNLOADED')`.as('unloaded'),
    ])
    .where('transport_id', '=', transportId)
    .where('type', 'in', ['ARRIVED_AT_UNLOADING', 'UNLOADED'])
    .executeTakeFirstOrThrow();
  return { last, arrivedAt: arrival.arrived ?? arrival.unloaded };
}
export type MilestoneRow = NonNullable<Awaited<ReturnType<typeof milestoneSummary>>['last']>;

/**
 * Stores a batch in one statement: the points (the first of each `recordedAt` in batch order;
 * one already stored is skipped by the primary key), then the newest of the new points into the
 * last position, only if it is newer than the one kept. Answers how many points were new and the
 * transport's last position after the batch (the statement's snapshot still holds the old row
 * when the batch did not move it, which is then the answer).
 */
export async function insertPositions(db: Db, transportId: number, positions: readonly PositionInput[]) {
  const json = JSON.stringify(
    positions.map((p, i) => ({
      i,
      latitude: p.latitude,
      longitude: p.longitude,
      recorded_at: p.recordedAt,
      speed_kmh: p.speedKmh ?? null,
      heading_deg: p.headingDeg ?? null,
      accuracy_m: p.accuracyM ?? null,
    })),
  );
  const { rows } = await sql<PositionRow & { accepted: number }>`
    with input as (
      select distinct on (p.recorded_at) p.*
      from json_to_recordset(${json}::json) as p(i int, latitude float8, longitude float8, recorded_at timestamptz,
        speed_kmh real, heading_deg real, accuracy_m real)
      order by p.recorded_at, p.i
    ), ins as (
      insert into transport_positions (transport_id, recorded_at, latitude, longitude, speed_kmh, heading_deg, accuracy_m)
      select ${transportId}, recorded_at, latitude, longitude, speed_kmh, heading_deg, accuracy_m from input
      on conflict (transport_id, recorded_at) do nothing
      returning recorded_at, latitude, longitude, speed_kmh, heading_deg, accuracy_m
    ), up as (
      insert into transport_last_positions (transport_id, recorded_at, latitude, longitude, speed_kmh, heading_deg, accuracy_m)
      select ${transportId}, recorded_at, latitude, longitude, speed_kmh, heading_deg, accuracy_m
      from ins order by recorded_at desc limit 1
      on conflict (transport_id) do update set
        recorded_at = excluded.recorded_at, latitude = excluded.latitude, longitude = excluded.longitude,
        speed_kmh = excluded.speed_kmh, heading_deg = excluded.heading_deg, accuracy_m = excluded.accuracy_m,
        received_at = now()
      where excluded.recorded_at > transport_last_positions.recorded_at
      returning recorded_at, latitude, longitude, speed_kmh, heading_deg, accuracy_m
    ), last as (
      select * from up
      union all
      select recorded_at, latitude, longitude, speed_kmh, heading_deg, accuracy_m
      from transport_last_positions where transport_id = ${transportId} and not exists (select 1 from up)
    )
    select (select count(*) from ins)::int as accepted, last.* from (select 1) one left join last on true`.execute(db);
  const row = rows[0]!;
  return { accepted: row.accepted, last: row.recorded_at === null ? null : row };
}

/**
 * Records `eta` as the ETA last announced, if the announced one is still `previous` (a concurrent
 * batch that announced first wins, and this one sends nothing). True when this call recorded it.
 */
export async function announceEta(db: Db, transportId: number, previous: Date | null, eta: Date): Promise<boolean> {
  const row = await db
    .updateTable('transport_last_positions')
    .set({ eta_announced_at: eta })
    .where('transport_id', '=', transportId)
    .where(sql<boolean>`eta_announced_at is not distinct from ${previous}`)
    .returning('transport_id')
    .executeTakeFirst();
  return row !== undefined;
}
