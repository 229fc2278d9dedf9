import { sql, type Kysely } from 'kysely';
import type { ComplaintStatus, Database } from '../../db/schema.js';
import type { Result } from '../../http/handlers.js';
import { hasGlobalView, ownedBy, scopeKey } from '../../lib/scope.js';
import { statsCache } from '../../lib/stats-cache.js';
import type { AuthContext } from '../../lib/identity.js';
import { STATUSES } from './rules.js';

type Stats = Result<'getComplaintStats'>;
const cache = statsCache<Stats>('complaints');

/**
 * Complaint statistics over the complaints the caller's scope created (`ownedComplaints`), read
 * from the roll-ups the database keeps in the same transaction as every write (migration 0009):
 * per creator, status, type and country for the totals, per UTC day for the series (everything:
 * complaint_day_counts; a team or a user: user_day_counts). Reused for callers of the same scope
 * while no complaint changes, for at most a few seconds (statsCache).
 */
export function complaintStats(db: Kysely<Database>, auth: AuthContext, days: number): Promise<Stats> {
  return cache(db, `${scopeKey(auth)}|${days}`, () => computeStats(db, auth, days));
}

async function computeStats(db: Kysely<Database>, auth: AuthContext, days: number): Promise<Stats> {
  const inScope = db.selectFrom('complaint_user_counts as x').where(ownedBy(auth, 'x.created_by'));
  const count = sql<number>`sum(x.complaints)::int`;
  const perDay = hasGlobalView(auth)
    ? sql`select day, complaints as n from complaint_day_counts x`
    : sql`select day, complaints as n from user_day_counts x where ${ownedBy(auth, 'x.user_id')}`;

  const [byStatusRows, byTypeRows, byCountryRows, resolution, perDayRows] = await Promise.all([
    inScope
      .select(['x.status', count.as('count')])
      .groupBy('x.status')
      .execute(),
    inScope
      .leftJoin('complaint_types as ct', 'ct.id', 'x.complaint_type_id')
      .select(['ct.id', 'ct.name', count.as('count')])
      .groupBy(['ct.id', 'ct.name'])
      .having(sql<number>`sum(x.complaints)`, '>', 0)
      .orderBy('count', 'desc')
      .orderBy('ct.name')
      .execute(),
    inScope
      .leftJoin('countries as co', 'co.id', 'x.country_id')
      .select(['co.id', 'co.name', count.as('count')])
      .groupBy(['co.id', 'co.name'])
      .having(sql<number>`sum(x.complaints)`, '>', 0)
      .orderBy('count', 'desc')
      .orderBy('co.name')
      .execute(),
    inScope
      .select(sql<number | null>`sum(x.resolution_seconds) / nullif(sum(x.resolved), 0) / 3600.0`.as('hours'))
      .executeTakeFirstOrThrow(),
    sql<{ date: string; count: number }>`
      with counted as (
        select r.day, sum(r.n)::int as n from (${perDay}) r
        where r.day >= (now() at time zone 'UTC')::date - ${days - 1}::int
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
    createdPerDay: perDayRows.rows.map((r) => ({ date: r.date, count: Number(r.count) })),
  };
}
