import type { components } from '@transport-ops/contract';
import { sql } from 'kysely';
import { enumValues } from '../../contract.js';
import type { TransportStatus } from '../../db/schema.js';
import { ownedBy } from '../../lib/scope.js';
import type { AuthContext } from '../../plugins/security.js';
import type { Db } from './repository.js';

type Stats = components['schemas']['TransportStats'];

const STATUSES: TransportStatus[] = enumValues('TransportStatus');

/** Transport figures over the caller's scope, every one aggregated by the database. */
export async function transportStats(db: Db, auth: AuthContext, days: number): Promise<Stats> {
  const scope = ownedBy(auth, 't.created_by');

  const totals = await db
    .selectFrom('transports as t')
    .where(scope)
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      sql<number>`coalesce(sum(t.total_product_value), 0)`.as('total_value'),
    ])
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

  // One row per UTC day of the window, days without transports included (left join on the series).
  const dayRows = await sql<{ date: string; count: number }>`
    select to_char(d.day, 'YYYY-MM-DD') as date, count(t.id)::int as count
    from generate_series(
      ((now() at time zone 'UTC')::date - ${days - 1}::int)::timestamp,
      (now() at time zone 'UTC')::date::timestamp,
      interval '1 day'
    ) as d(day)
    left join transports t on (t.created_at at time zone 'UTC')::date = d.day::date and ${scope}
    group by d.day
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
