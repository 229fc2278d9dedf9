import type { components } from '@transport-ops/contract';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/*
 * Writing transport positions: the points (partitioned by day, see position-partitions.ts) and
 * each transport's latest one. Used by the ingest (modules/tracking) and by the demo data.
 */

type PositionInput = components['schemas']['TransportPositionInput'];

export interface PositionRow {
  recorded_at: Date;
  latitude: number;
  longitude: number;
  speed_kmh: number | null;
  heading_deg: number | null;
  accuracy_m: number | null;
}

/**
 * Stores a batch in one statement: the points (the first of each `recordedAt` in batch order;
 * one already stored is skipped by the primary key), then the newest of the new points into the
 * last position, only if it is newer than the one kept. Answers how many points were new and the
 * transport's last position after the batch (the statement's snapshot still holds the old row
 * when the batch did not move it, which is then the answer).
 */
export async function insertPositions(db: Kysely<Database>, transportId: number, positions: readonly PositionInput[]) {
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
