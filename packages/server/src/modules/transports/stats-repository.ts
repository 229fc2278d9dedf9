import type { components } from '@transport-ops/contract';
import { sql, type Expression, type SqlBool } from 'kysely';
import { enumValues } from '../../contract.js';
import type { TransportStatus } from '../../db/schema.js';
import { ownedBy } from '../../lib/scope.js';
import { statsCache } from '../../lib/stats-cache.js';
import type { AuthContext } from '../../plugins/security.js';
import type { Db } from './repository.js';

type Stats = components['schemas']['TransportStats'];

const STATUSES: TransportStatus[] = enumValues('TransportStatus');

const cache = statsCache<Stats>('transports');

/**
 * Transport figures over the caller's scope, every one aggregated by the database; reused for
 * callers of the same scope while no transport changes, for at most a few seconds (statsCache).
 */
export function transportStats(db: Db, auth: AuthContext, days: number): Promise<Stats> {
  const scope = ownedBy(auth, 't.created_by');
  const { sql: text, parameters } = sql`${scope}`.compile(db);
  return cache(db, JSON.stringify([text, parameters, days]), () => computeStats(db, scope, days));
}

async function computeStats(db: Db, scope: Expression<SqlBool>, days: number): Promise<Stats> {
  const totals = await db
    .selectFrom('transports as t')
    .where(scope)
    .select((eb) => [eb.fn.countAll<number>().as('total'), sql<number>`coalesce(sum(t.total_product_value), 0)`.as('total_value')])
    .executeTakeFirstOrThrow();

  const statusRows = await db
    .selectFrom('transports as t')
    .where(scope)
    .select((eb) => ['t.status', eb.fn.countAll<number>().as('count')])
    .groupBy('t.status')
    .execute();
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Stats['byStatus'];
  for (const r of statusRows) byStatus[r.status] = Number(r.count);

  const vehicleRows = await db
    .selectFrom('transports as t')
    .innerJoin('vehicle_types as vt', 'vt.id', 't.vehicle_type_id')
    .where(scope)
    .select((eb) => ['vt.id', 'vt.name', eb.fn.countAll<number>().as('count')])
    .groupBy(['vt.id', 'vt.name'])
    .orderBy('count', 'desc')
    .orderBy('vt.id')
    .execute();

  // One row per UTC day of the window, days without transports included (left join on the series);
  // the range condition on created_at keeps the scan on its index.
  const dayRows = await sql<{ date: string; count: number }>`
    with bounds as (select ((now() at time zone 'UTC')::date - ${days - 1}::int)::timestamp as first_day),
    counted as (
      select (t.created_at at time zone 'UTC')::date as day, count(*)::int as n
      from transports t, bounds b
      where t.created_at >= (b.first_day at time zone 'UTC') and ${scope}
      group by 1
    )
    select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(c.n, 0)::int as count
    from bounds b, generate_series(b.first_day, (now() at time zone 'UTC')::date::timestamp, interval '1 day') as d(day)
    left join counted c on c.day = d.day::date
    order by d.day`.execute(db);

  return {
    days,
    total: Number(totals.total),
    byStatus,
    byVehicleType: vehicleRows.map((r) => ({ vehicleTypeId: r.id, name: r.name, count: Number(r.count) })),
    createdPerDay: dayRows.rows.map((r) => ({ date: r.date, count: Number(r.count) })),
    totalProductValue: Number(totals.total_value),
    generatedAt: new Date().toISOString(),
  };
}
