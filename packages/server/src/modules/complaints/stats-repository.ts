import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { ComplaintStatus, Database } from '../../db/schema.js';
import type { Result } from '../../http/handlers.js';
import { STATUSES } from './rules.js';
import { statsCache } from '../../lib/stats-cache.js';

type Stats = Result<'getComplaintStats'>;
const cache = statsCache<Stats>('complaints');

/**
 * Complaint statistics over `scope` (alias `c`), every figure computed by the database; reused
 * for callers of the same scope while no complaint changes, for at most a few seconds (statsCache).
 */
export function complaintStats(db: Kysely<Database>, scope: Expression<SqlBool>, days: number): Promise<Stats> {
  const { sql: text, parameters } = sql`${scope}`.compile(db);
  return cache(db, JSON.stringify([text, parameters, days]), () => computeStats(db, scope, days));
}

async function computeStats(db: Kysely<Database>, scope: Expression<SqlBool>, days: number): Promise<Stats> {
  const inScope = db.selectFrom('complaints as c').where(scope);

  const [byStatusRows, byTypeRows, byCountryRows, resolution, perDay] = await Promise.all([
    inScope
      .select(['c.status', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy('c.status')
      .execute(),
    inScope
      .leftJoin('complaint_types as ct', 'ct.id', 'c.complaint_type_id')
      .select(['ct.id', 'ct.name', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy(['ct.id', 'ct.name'])
      .orderBy('count', 'desc')
      .orderBy('ct.name')
      .execute(),
    inScope
      .leftJoin('countries as co', 'co.id', 'c.country_id')
      .select(['co.id', 'co.name', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy(['co.id', 'co.name'])
      .orderBy('count', 'desc')
      .orderBy('co.name')
      .execute(),
    inScope
      .select(sql<number | null>`avg(extract(epoch from (c.resolved_at - c.created_at)) / 3600.0)`.as('hours'))
      .where('c.resolved_at', 'is not', null)
      .executeTakeFirstOrThrow(),
    sql<{ date: string; count: number }>`
      with counted as (
        select (c.created_at at time zone 'UTC')::date as day, count(*)::int as n
        from complaints c
        where c.created_at >= (((now() at time zone 'UTC')::date - ${days - 1}::int)::timestamp at time zone 'UTC') and ${scope}
        group by 1
      )
      select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(n.n, 0) as count
      from generate_series(
        (now() at time zone 'UTC')::date - ${days - 1}::int,
        (now() at time zone 'UTC')::date,
        interval '1 day'
      ) as d(day)
      left join counted n on n.day = d.day::date
      order by d.day`.execute(db),
  ]);

  const counts = new Map<ComplaintStatus, number>(byStatusRows.map((r) => [r.status, Number(r.count)]));
  const byStatus = STATUSES.map((status) => ({ status, count: counts.get(status) ?? 0 }));
  const hours = resolution.hours === null ? null : Math.round(Number(resolution.hours) * 100) / 100;
  return {
    total: byStatus.reduce((sum, s) => sum + s.count, 0),
    byStatus,
    byType: byTypeRows.map((r) => ({ complaintTypeId: r.id, name: r.name, count: Number(r.count) })),
    byCountry: byCountryRows.map((r) => ({ countryId: r.id, name: r.name, count: Number(r.count) })),
    averageResolutionHours: hours,
    days,
    createdPerDay: perDay.rows.map((r) => ({ date: r.date, count: Number(r.count) })),
  };
}
