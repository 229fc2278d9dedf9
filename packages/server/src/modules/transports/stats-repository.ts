import type { components } from '@transport-ops/contract';
import { sql } from 'kysely';
import { enumValues } from '../../contract.js';
import type { TransportStatus } from '../../db/schema.js';
import { hasGlobalView, ownedBy, scopeKey } from '../../lib/scope.js';
import { statsCache } from '../../lib/stats-cache.js';
import type { AuthContext } from '../../lib/identity.js';
import type { Db } from './repository.js';

type Stats = components['schemas']['TransportStats'];

const STATUSES: TransportStatus[] = enumValues('TransportStatus');

const cache = statsCache<Stats>('transports');

/**
 * Transport figures over the caller's scope, read from the roll-ups the database keeps in the same
 * transaction as every write (migration 0009): per creator for the totals, per UTC day for the
 * series (everything: transport_day_counts; a team or a user: user_day_counts). Reused for callers
 * of the same scope while no transport changes, for at most a few seconds (statsCache).
 */
export function transportStats(db: Db, auth: AuthContext, days: number): Promise<Stats> {
  return cache(db, `${scopeKey(auth)}|${days}`, () => computeStats(db, auth, days));
}

async function computeStats(db: Db, auth: AuthContext, days: number): Promise<Stats> {
  const scope = ownedBy(auth, 'x.created_by');
  const statusRows = await db
    .selectFrom('transport_user_counts as x')
    .where(scope)
    .select([
      'x.status',
      sql<number>`sum(x.transports)::int`.as('count'),
      sql<number>`coalesce(sum(sum(x.product_value)) over (), 0)::float8`.as('total_value'),
    ])
    .groupBy('x.status')
    .execute();
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Stats['byStatus'];
  for (const r of statusRows) byStatus[r.status] = Number(r.count);

  const vehicleRows = await db
    .selectFrom('transport_user_counts as x')
    .innerJoin('vehicle_types as vt', 'vt.id', 'x.vehicle_type_id')
    .where(scope)
    .select(['vt.id', 'vt.name', sql<number>`sum(x.transports)::int`.as('count')])
    .groupBy(['vt.id', 'vt.name'])
    .having(sql<number>`sum(x.transports)`, '>', 0)
    .orderBy('count', 'desc')
    .orderBy('vt.id')
    .execute();

  // One row per UTC day of the window, days without transports included (left join on the series).
  const perDay = hasGlobalView(auth)
    ? sql`select day, transports as n from transport_day_counts x`
    : sql`select day, transports as n from user_day_counts x where ${ownedBy(auth, 'x.user_id')}`;
  const dayRows = await sql<{ date: string; count: number }>`
    with bounds as (select (now() at time zone 'UTC')::date - ${days - 1}::int as first_day),
    counted as (
      select r.day, sum(r.n)::int as n from (${perDay}) r, bounds b where r.day >= b.first_day group by 1
    )
    select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(c.n, 0)::int as count
    from bounds b, generate_series(b.first_day::timestamp, (now() at time zone 'UTC')::date::timestamp, interval '1 day') as d(day)
    left join counted c on c.day = d.day::date
    order by d.day`.execute(db);

  return {
    days,
    total: statusRows.reduce((n, r) => n + Number(r.count), 0),
    byStatus,
    byVehicleType: vehicleRows.map((r) => ({ vehicleTypeId: r.id, name: r.name, count: Number(r.count) })),
    createdPerDay: dayRows.rows.map((r) => ({ date: r.date, count: Number(r.count) })),
    totalProductValue: Number(statusRows[0]?.total_value ?? 0),
    generatedAt: new Date().toISOString(),
  };
}
