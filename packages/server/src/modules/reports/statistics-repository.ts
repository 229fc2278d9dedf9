import type { components } from '@transport-ops/contract';
import { type Expression, type Kysely, type RawBuilder, sql, type SqlBool } from 'kysely';
import { enumValues } from '../../contract.js';
import type { Database } from '../../db/schema.js';
import { hasGlobalView, ownedBy, scopeKey } from '../../lib/scope.js';
import { statsCache } from '../../lib/stats-cache.js';
import type { AuthContext } from '../../lib/identity.js';

type Db = Kysely<Database>;
type Statistics = components['schemas']['ReportStatistics'];

const TRANSPORT_STATUSES = enumValues('TransportStatus');
const COMPLAINT_STATUSES = enumValues('ComplaintStatus');

/** The sum of one figure over the rows grouped by status. */
const sumOf = <R>(rows: R[], figure: (row: R) => number) => rows.reduce((n, r) => n + figure(r), 0);

/** Every status in the contract's order with its count (0 for a status no row has). */
const byStatus = <S extends string>(statuses: S[], rows: { status: S; count: number }[]) =>
  statuses.map((status) => ({ status, count: rows.find((r) => r.status === status)?.count ?? 0 }));

export interface Period {
  startDate?: string;
  endDate?: string;
}

/** The caller's scope as a condition on a column holding a user id. */
type Scope = (userIdColumn: string) => Expression<SqlBool>;

/**
 * `ownedBy` with the team's users read once: every part of the report's queries names them as a
 * list instead of planning the organization subtree again.
 */
async function scopeOf(db: Db, auth: AuthContext): Promise<Scope> {
  if (hasGlobalView(auth)) return () => sql<SqlBool>`true`;
  const ids = (await db.selectFrom('users as u').select('u.id').where(ownedBy(auth, 'u.id')).execute()).map((u) => u.id);
  if (ids.length === 0) return () => sql<SqlBool>`false`;
  return (column) => sql<SqlBool>`${sql.ref(column)} = any(array[${sql.join(ids)}]::int[])`;
}

/** `column` within the period (both ends inclusive). */
function inPeriod(column: string, p: Period): Expression<SqlBool> {
  const from = p.startDate === undefined ? sql`true` : sql`${sql.ref(column)} >= ${new Date(p.startDate)}`;
  const to = p.endDate === undefined ? sql`true` : sql`${sql.ref(column)} < ${new Date(Date.parse(p.endDate) + 1)}`;
  return sql<SqlBool>`(${from} and ${to})`;
}

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A period (both ends inclusive, to the millisecond) as the whole UTC days inside it, read from the
 * daily roll-ups (`days`, [from, to), null ends unbounded; null when there is no whole day), and the
 * partial days around them, read from the rows by their creation-date index (`edges`, [from, to)).
 */
interface Split {
  days: { from: string | null; to: string | null } | null;
  edges: Array<{ from: Date | null; to: Date | null }>;
}

function split(p: Period): Split {
  const start = p.startDate === undefined ? null : Date.parse(p.startDate);
  const end = p.endDate === undefined ? null : Date.parse(p.endDate) + 1;
  const firstDay = start === null ? null : Math.ceil(start / DAY_MS) * DAY_MS;
  const lastDay = end === null ? null : Math.floor(end / DAY_MS) * DAY_MS;
  if (firstDay !== null && lastDay !== null && firstDay >= lastDay) {
    return { days: null, edges: [{ from: new Date(start!), to: new Date(end!) }] };
  }
  const edges: Split['edges'] = [];
  if (start !== null && start < firstDay!) edges.push({ from: new Date(start), to: new Date(firstDay!) });
  if (end !== null && lastDay! < end) edges.push({ from: new Date(lastDay!), to: new Date(end) });
  return { days: { from: firstDay === null ? null : isoDay(firstDay), to: lastDay === null ? null : isoDay(lastDay) }, edges };
}

/** `column` (a date) within the whole days of the split. */
function inDays(column: string, days: NonNullable<Split['days']>): Expression<SqlBool> {
  const from = days.from === null ? sql`true` : sql`${sql.ref(column)} >= ${days.from}::date`;
  const to = days.to === null ? sql`true` : sql`${sql.ref(column)} < ${days.to}::date`;
  return sql<SqlBool>`(${from} and ${to})`;
}

/** `column` (a timestamp) within one partial day range. */
function inRange(column: string, range: Split['edges'][number]): Expression<SqlBool> {
  const from = range.from === null ? sql`true` : sql`${sql.ref(column)} >= ${range.from}`;
  const to = range.to === null ? sql`true` : sql`${sql.ref(column)} < ${range.to}`;
  return sql<SqlBool>`(${from} and ${to})`;
}

/** The parts of a union: the roll-up's rows in the whole days, the rows of each partial range. */
function parts(
  s: Split,
  rollUp: (days: NonNullable<Split['days']>) => RawBuilder<unknown>,
  rows: (range: Split['edges'][number]) => RawBuilder<unknown>,
) {
  return sql.join([...(s.days ? [rollUp(s.days)] : []), ...s.edges.map(rows)], sql` union all `);
}

type TransportRow = {
  status: Statistics['transports']['byStatus'][number]['status'];
  count: number;
  level0: number;
  level1: number;
  value: number;
};

/**
 * Everything: sums of the daily roll-up (transport_day_counts, migration 0009) plus the rows of the
 * partial days. A team or a user: the per-creator roll-up without a period, the rows within one.
 */
async function transportRows(db: Db, auth: AuthContext, scope: Scope, p: Period): Promise<TransportRow[]> {
  const outer = (inner: RawBuilder<unknown>) => sql<TransportRow>`select status, sum(n)::int as count, sum(level0)::int as level0,
      sum(level1)::int as level1, coalesce(sum(value), 0)::float8 as value
    from (${inner}) r group by status`;
  const level = (n: number, count: string) => sql.raw(`case when status = 'PENDING' and validation_level = ${n} then ${count} else 0 end`);
  const fromRows = (where: Expression<SqlBool>) =>
    sql`select status, 1 as n, ${level(0, '1')} as level0, ${level(1, '1')} as level1, total_product_value::numeric as value
      from transports t where ${where}`;
  if (hasGlobalView(auth)) {
    const s = split(p);
    const inner = parts(
      s,
      (days) => sql`select status, transports as n, ${level(0, 'transports')} as level0, ${level(1, 'transports')} as level1,
          product_value as value from transport_day_counts x where ${inDays('x.day', days)}`,
      (range) => fromRows(inRange('t.created_at', range)),
    );
    return (await outer(inner).execute(db)).rows;
  }
  if (p.startDate === undefined && p.endDate === undefined) {
    const inner = sql`select status, transports as n, ${level(0, 'transports')} as level0, ${level(1, 'transports')} as level1,
        product_value as value from transport_user_counts x where ${scope('x.created_by')}`;
    return (await outer(inner).execute(db)).rows;
  }
  return (await outer(fromRows(sql`${scope('t.created_by')} and ${inPeriod('t.created_at', p)}`)).execute(db)).rows;
}

async function transportFigures(db: Db, auth: AuthContext, scope: Scope, p: Period): Promise<Statistics['transports']> {
  const rows = await transportRows(db, auth, scope, p);
  return {
    total: sumOf(rows, (r) => r.count),
    byStatus: byStatus(TRANSPORT_STATUSES, rows),
    awaitingLevel1: sumOf(rows, (r) => r.level0),
    awaitingLevel2: sumOf(rows, (r) => r.level1),
    totalProductValue: sumOf(rows, (r) => r.value),
  };
}

type ComplaintRow = {
  status: Statistics['complaints']['byStatus'][number]['status'];
  count: number;
  amount: number;
  seconds: number;
  resolved: number;
};

/** As transportRows, on complaint_day_counts and complaint_user_counts. */
async function complaintRows(db: Db, auth: AuthContext, scope: Scope, p: Period): Promise<ComplaintRow[]> {
  const outer = (inner: RawBuilder<unknown>) => sql<ComplaintRow>`select status, sum(n)::int as count,
      coalesce(sum(amount), 0)::float8 as amount, coalesce(sum(seconds), 0)::float8 as seconds, sum(resolved)::int as resolved
    from (${inner}) r group by status`;
  const fromRows = (where: Expression<SqlBool>) =>
    sql`select status, 1 as n, amount_paid::numeric as amount, extract(epoch from (resolved_at - created_at)) as seconds,
        (resolved_at is not null)::int as resolved
      from complaints c where ${where}`;
  const rolledUp = sql`status, complaints as n, amount_paid as amount, resolution_seconds as seconds, resolved`;
  if (hasGlobalView(auth)) {
    const s = split(p);
    const inner = parts(
      s,
      (days) => sql`select ${rolledUp} from complaint_day_counts x where ${inDays('x.day', days)}`,
      (range) => fromRows(inRange('c.created_at', range)),
    );
    return (await outer(inner).execute(db)).rows;
  }
  if (p.startDate === undefined && p.endDate === undefined) {
    return (await outer(sql`select ${rolledUp} from complaint_user_counts x where ${scope('x.created_by')}`).execute(db)).rows;
  }
  return (await outer(fromRows(sql`${scope('c.created_by')} and ${inPeriod('c.created_at', p)}`)).execute(db)).rows;
}

async function complaintFigures(db: Db, auth: AuthContext, scope: Scope, p: Period): Promise<Statistics['complaints']> {
  const rows = await complaintRows(db, auth, scope, p);
  const resolved = sumOf(rows, (r) => r.resolved);
  const seconds = sumOf(rows, (r) => r.seconds);
  return {
    total: sumOf(rows, (r) => r.count),
    byStatus: byStatus(COMPLAINT_STATUSES, rows),
    resolvedCount: resolved,
    averageResolutionHours: resolved === 0 ? null : Math.round((seconds / resolved / 3600) * 10) / 10,
    amountPaid: sumOf(rows, (r) => r.amount),
  };
}

/** The first day of the UTC month after the one of `day` (YYYY-MM-DD). */
function nextMonth(day: string): string {
  const d = new Date(`${day.slice(0, 8)}01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return isoDay(d.getTime());
}

/** Whole days as the whole UTC months inside them and the days around those. */
function months(days: NonNullable<Split['days']>): { months: NonNullable<Split['days']> | null; days: NonNullable<Split['days']>[] } {
  const from = days.from === null ? null : days.from.endsWith('-01') ? days.from : nextMonth(days.from);
  const to = days.to === null ? null : `${days.to.slice(0, 8)}01`;
  if (from !== null && to !== null && from >= to) return { months: null, days: [days] };
  const rest: NonNullable<Split['days']>[] = [];
  if (days.from !== null && days.from < from!) rest.push({ from: days.from, to: from });
  if (days.to !== null && to! < days.to) rest.push({ from: to, to: days.to });
  return { months: { from, to }, days: rest };
}

/**
 * Per user of the scope with activity in the period: what they created and resolved. Sums of
 * user_month_counts over the whole months, of user_day_counts over the other whole days (migration
 * 0009), plus the rows of the partial days.
 */
async function userFigures(db: Db, scope: Scope, p: Period): Promise<Statistics['users']> {
  const s = split(p);
  const tiers = s.days ? months(s.days) : { months: null, days: [] };
  const inner = sql.join(
    [
      ...(tiers.months
        ? [
            sql`select user_id, transports, complaints, resolutions from user_month_counts x
              where ${scope('x.user_id')} and ${inDays('x.month', tiers.months)}`,
          ]
        : []),
      ...tiers.days.map(
        (days) => sql`select user_id, transports, complaints, resolutions from user_day_counts x
          where ${scope('x.user_id')} and ${inDays('x.day', days)}`,
      ),
      ...s.edges.map(
        (range) => sql`select created_by as user_id, 1 as transports, 0 as complaints, 0 as resolutions from transports t
          where ${scope('t.created_by')} and ${inRange('t.created_at', range)}
          union all
          select created_by, 0, 1, 0 from complaints c where ${scope('c.created_by')} and ${inRange('c.created_at', range)}
          union all
          select created_by, 0, 0, 1 from complaint_status_history h
          where h.status = 'RESOLVED' and ${inRange('h.created_at', range)} and ${scope('h.created_by')}`,
      ),
    ],
    sql` union all `,
  );
  const { rows } = await sql<{ id: number; username: string; transports: number; complaints: number; resolved: number }>`
    select u.id, u.username, a.transports, a.complaints, a.resolved
    from (select user_id, sum(transports)::int as transports, sum(complaints)::int as complaints, sum(resolutions)::int as resolved
      from (${inner}) r group by user_id) a
    join users u on u.id = a.user_id
    order by u.username`.execute(db);
  return rows
    .filter((r) => r.transports + r.complaints + r.resolved > 0)
    .map((r) => ({
      userId: r.id,
      username: r.username,
      transportsCreated: r.transports,
      complaintsCreated: r.complaints,
      complaintsResolved: r.resolved,
    }));
}

const cache = statsCache<Statistics>('transports', 'complaints');

/**
 * The report over the records the caller created themselves, whatever their role (the
 * specification's "reports read (own)"): the scope of an agent, applied to anyone.
 */
export async function ownReportStatistics(db: Db, auth: AuthContext, p: Period): Promise<components['schemas']['OwnReportStatistics']> {
  const own: AuthContext = Object.assign({}, auth, { accessLevel: 'agent' as const, organizationId: null });
  const { startDate, endDate, transports, complaints } = await reportStatistics(db, own, p);
  return { startDate, endDate, transports, complaints };
}

/**
 * The report over the caller's scope and period, aggregated by the database; reused for callers of
 * the same scope and period while no transport or complaint changes, for at most a few seconds
 * (statsCache: resolutions are recorded with a complaint change).
 */
export function reportStatistics(db: Db, auth: AuthContext, p: Period): Promise<Statistics> {
  return cache(db, `${scopeKey(auth)}|${p.startDate ?? ''}|${p.endDate ?? ''}`, () => computeStatistics(db, auth, p));
}

/**
 * Every query reads a few thousand index entries at most: in one transaction without parallel
 * workers, whose start costs more than the work.
 */
async function computeStatistics(db: Db, auth: AuthContext, p: Period): Promise<Statistics> {
  return db.transaction().execute(async (trx) => {
    await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
    const scope = await scopeOf(trx, auth);
    return {
      scope: hasGlobalView(auth) ? 'GLOBAL' : 'TEAM',
      startDate: p.startDate ?? null,
      endDate: p.endDate ?? null,
      transports: await transportFigures(trx, auth, scope, p),
      complaints: await complaintFigures(trx, auth, scope, p),
      users: await userFigures(trx, scope, p),
    };
  });
}
