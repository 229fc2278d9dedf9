import type { components } from '@transport-ops/contract';
import { type Expression, type Kysely, sql, type SqlBool } from 'kysely';
import { enumValues } from '../../contract.js';
import type { Database } from '../../db/schema.js';
import { hasGlobalView, ownedBy } from '../../lib/scope.js';
import { statsCache } from '../../lib/stats-cache.js';
import type { AuthContext } from '../../plugins/security.js';

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

/** `column` within the period (both ends inclusive). */
function inPeriod(column: string, p: Period): Expression<SqlBool> {
  const from = p.startDate === undefined ? sql`true` : sql`${sql.ref(column)} >= ${new Date(p.startDate)}`;
  const to = p.endDate === undefined ? sql`true` : sql`${sql.ref(column)} < ${new Date(Date.parse(p.endDate) + 1)}`;
  return sql<SqlBool>`(${from} and ${to})`;
}

async function transportFigures(db: Db, auth: AuthContext, p: Period): Promise<Statistics['transports']> {
  const rows = await db
    .selectFrom('transports as t')
    .select([
      't.status',
      sql<number>`count(*)::int`.as('count'),
      sql<number>`count(*) filter (where t.status = 'PENDING' and t.validation_level = 0)::int`.as('level0'),
      sql<number>`count(*) filter (where t.status = 'PENDING' and t.validation_level = 1)::int`.as('level1'),
      sql<number>`coalesce(sum(t.total_product_value), 0)::float8`.as('value'),
    ])
    .where(ownedBy(auth, 't.created_by'))
    .where(inPeriod('t.created_at', p))
    .groupBy('t.status')
    .execute();
  return {
    total: sumOf(rows, (r) => r.count),
    byStatus: byStatus(TRANSPORT_STATUSES, rows),
    awaitingLevel1: sumOf(rows, (r) => r.level0),
    awaitingLevel2: sumOf(rows, (r) => r.level1),
    totalProductValue: sumOf(rows, (r) => r.value),
  };
}

async function complaintFigures(db: Db, auth: AuthContext, p: Period): Promise<Statistics['complaints']> {
  const rows = await db
    .selectFrom('complaints as c')
    .select([
      'c.status',
      sql<number>`count(*)::int`.as('count'),
      sql<number>`coalesce(sum(c.amount_paid), 0)::float8`.as('amount'),
      sql<number>`coalesce(sum(extract(epoch from (c.resolved_at - c.created_at))) filter (where c.resolved_at is not null), 0)::float8`.as(
        'seconds',
      ),
      sql<number>`count(c.resolved_at)::int`.as('resolved'),
    ])
    .where(ownedBy(auth, 'c.created_by'))
    .where(inPeriod('c.created_at', p))
    .groupBy('c.status')
    .execute();
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

/** Per user of the scope with activity in the period: what they created and resolved. */
async function userFigures(db: Db, auth: AuthContext, p: Period): Promise<Statistics['users']> {
  const rows = await db
    .selectFrom('users as u')
    .select([
      'u.id',
      'u.username',
      sql<number>`(select count(*)::int from transports t where t.created_by = u.id and ${inPeriod('t.created_at', p)})`.as('transports'),
      sql<number>`(select count(*)::int from complaints c where c.created_by = u.id and ${inPeriod('c.created_at', p)})`.as('complaints'),
      sql<number>`(select count(*)::int from complaint_status_history h
        where h.created_by = u.id and h.status = 'RESOLVED' and ${inPeriod('h.created_at', p)})`.as('resolved'),
    ])
    .where(ownedBy(auth, 'u.id'))
    .orderBy('u.username')
    .execute();
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
 * The report over the caller's scope and period, aggregated by the database; reused for callers of
 * the same scope and period while no transport or complaint changes, for at most a few seconds
 * (statsCache: resolutions are recorded with a complaint change).
 */
export function reportStatistics(db: Db, auth: AuthContext, p: Period): Promise<Statistics> {
  const { sql: text, parameters } = sql`${ownedBy(auth, 'u.id')}`.compile(db);
  return cache(db, JSON.stringify([text, parameters, p.startDate ?? null, p.endDate ?? null]), () => computeStatistics(db, auth, p));
}

async function computeStatistics(db: Db, auth: AuthContext, p: Period): Promise<Statistics> {
  return {
    scope: hasGlobalView(auth) ? 'GLOBAL' : 'TEAM',
    startDate: p.startDate ?? null,
    endDate: p.endDate ?? null,
    transports: await transportFigures(db, auth, p),
    complaints: await complaintFigures(db, auth, p),
    users: await userFigures(db, auth, p),
  };
}
