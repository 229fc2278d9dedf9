import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { RECENT_WINDOW_MS } from './geo.js';

export { insertPositions, type PositionRow } from '../../db/positions.js';

export type Db = Kysely<Database>;

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
