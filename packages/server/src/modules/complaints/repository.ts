import type { operations } from '@transport-ops/contract';
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { queryShape } from '../../lib/query-shape.js';
import { ownedByScope, ownedOrAssignedRuns, ownedOrAssignedScope } from '../../lib/scope.js';
import type { ComplaintScope } from './rules.js';
import type { ComplaintStatus, Database } from '../../db/schema.js';
import { containing } from '../../lib/text.js';
import type { Query, SharedQuery } from '../../http/handlers.js';
import { keysetBatches } from '../../lib/keyset-batches.js';
import { fetchKeysetPage, type SortKey, totalsCache } from '../../lib/paging.js';

type Db = Kysely<Database>;

/** A complaint with everything its list items and details show (aliases: c, t, ct, cu, cb, au). */
export function selectComplaints(db: Db) {
  return db
    .selectFrom('complaints as c')
    .innerJoin('transports as t', 't.id', 'c.transport_id')
    .innerJoin('users as cb', 'cb.id', 'c.created_by')
    .leftJoin('complaint_types as ct', 'ct.id', 'c.complaint_type_id')
    .leftJoin('actors as cu', 'cu.id', 'c.customer_id')
    .leftJoin('users as au', 'au.id', 'c.assigned_to')
    .select([
      'c.id',
      'c.public_id',
      'c.label',
      'c.description',
      'c.status',
      'c.location',
      'c.amount_paid',
      'c.time_lost',
      'c.resolved_at',
      'c.created_at',
      'c.updated_at',
      't.id as transport_id',
      't.loading_point',
      't.unloading_point',
      't.vehicle_plate_number',
      'ct.id as type_id',
      'ct.name as type_name',
      'ct.description as type_description',
      'cu.id as customer_id',
      'cu.first_name as customer_first_name',
      'cu.last_name as customer_last_name',
      'cu.email as customer_email',
      'cb.id as created_by_id',
      'cb.username as created_by_username',
      'au.id as assigned_to_id',
      'au.username as assigned_to_username',
    ]);
}
export type ComplaintRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectComplaints>['executeTakeFirst']>>>;

/** The filters of both complaint lists; `assignedTo`, `createdBy` and `search` are the administrators' own. */
export type ComplaintFilters = Omit<SharedQuery<'listComplaints', 'listAdminComplaints'>, 'page' | 'limit'> &
  Pick<Query<'listAdminComplaints'>, 'assignedTo' | 'createdBy' | 'search'>;

const SORT_KEYS: Record<NonNullable<ComplaintFilters['sortBy']>, SortKey> = {
  createdAt: { column: 'c.created_at', type: 'timestamptz' },
  updatedAt: { column: 'c.updated_at', type: 'timestamptz' },
  status: { column: 'c.status', type: 'text' },
};

/** The query parameters of the complaint lists and their export, as the contract declares them. */
export type ListParameters = NonNullable<operations['listComplaints']['parameters']['query']> &
  NonNullable<operations['listAdminComplaints']['parameters']['query']> &
  NonNullable<operations['exportComplaintsReport']['parameters']['query']>;

const complaintsFrom = (db: Db) => db.selectFrom('complaints as c');
type Where = WhereOf<ReturnType<typeof complaintsFrom>>;

/**
 * Each filter of the complaint lists, declared once (lib/filter-spec.ts): the page, its count and
 * the CSV export apply them through `baseQuery`. Typed from the contract: a query parameter of
 * `listComplaints`, `listAdminComplaints` or `exportComplaintsReport` with no entry here (and not
 * a paging one) is a type error. The order is the order of the conditions in the statement.
 */
export const FILTERS: FilterSpecs<ListParameters, Where> = {
  status: { bind: same, where: (eb, v) => eb('c.status', '=', v as ComplaintStatus), columns: ['c.status'] },
  countryId: { bind: same, where: (eb, v) => eb('c.country_id', '=', v as number), columns: ['c.country_id'] },
  complaintTypeId: { bind: same, where: (eb, v) => eb('c.complaint_type_id', '=', v as number), columns: ['c.complaint_type_id'] },
  startAtFrom: { bind: (v) => new Date(v), where: (eb, v) => eb('c.created_at', '>=', v as Date), columns: ['c.created_at'] },
  // Half-open end: the API shows instants to the millisecond, the column keeps microseconds, so the
  // end instant given by a client covers its whole millisecond.
  startAtTo: { bind: (v) => new Date(Date.parse(v) + 1), where: (eb, v) => eb('c.created_at', '<', v as Date), columns: ['c.created_at'] },
  label: { bind: containing, where: (eb, v) => eb('c.label', 'ilike', v as string), columns: ['c.label'], text: true },
  assignedTo: { bind: same, where: (eb, v) => eb('c.assigned_to', '=', v as number), columns: ['c.assigned_to'] },
  createdBy: { bind: same, where: (eb, v) => eb('c.created_by', '=', v as number), columns: ['c.created_by'] },
  search: {
    bind: containing,
    where: (eb, v) =>
      eb.or([eb('c.label', 'ilike', v as string), eb('c.description', 'ilike', v as string), eb('c.location', 'ilike', v as string)]),
    columns: ['c.label', 'c.description', 'c.location'],
    text: true,
  },
};
const FILTER = filters(FILTERS);

/** The filters of the base query, with their values as the statement binds them. */
type BaseParams = BoundFilters<ListParameters>;

const baseParams = (f: ComplaintFilters): BaseParams => FILTER.bind(f, {});

function baseQuery(db: Db, scope: Expression<SqlBool>, p: BaseParams) {
  return FILTER.apply(complaintsFrom(db).where(scope), p);
}

/** The base query as a query shape (lib/query-shape.ts): compiled once per scope and combination of filters. */
const baseShape = queryShape<BaseParams & ComplaintScope, unknown>(
  { values: ['ownerId', 'teamId', ...FILTER.values], structure: ['scope', 'orAssigned', ...FILTER.structure] },
  (db, p) => baseQuery(db, p.orAssigned ? ownedOrAssignedScope(p, 'c.created_by', 'c.assigned_to') : ownedByScope(p, 'c.created_by'), p),
);

/** The complaints in `scope` that pass the filters: the base table only, no joins. */
export function listBase(db: Db, scope: Expression<SqlBool>, f: ComplaintFilters) {
  return baseQuery(db, scope, baseParams(f));
}

/** Complaints by id, joined (any order). */
const complaintsById = queryShape({ values: ['ids'] }, (db, p: { ids: number[] }) =>
  selectComplaints(db).where('c.id', '=', sql<number>`any(${p.ids})`),
);

/** Totals of the complaints lists, reused while no complaint changes (paging through a filtered list counts it once). */
const totals = totalsCache('complaints');

/** One page of the complaints in `scope`: ids by keyset or offset, then their joined rows, and the total. */
export function listPage(db: Db, scope: ComplaintScope, f: ComplaintFilters & { page: number; limit: number; cursor?: string }) {
  return fetchKeysetPage(db, baseShape.with(Object.assign({}, scope, baseParams(f))), {
    keys: [SORT_KEYS[f.sortBy ?? 'createdAt'], { column: 'c.id', type: 'integer' }],
    direction: f.sortOrder === 'ASC' ? 'asc' : 'desc',
    page: f.page,
    limit: f.limit,
    cursor: f.cursor,
    load: (ids) => complaintsById.execute(db, { ids }),
    idOf: (row) => row.id,
    totals,
    // An agent's complaints, theirs or assigned to them: two index ranges in date order (migration 0010).
    runs:
      scope.orAssigned && (f.sortBy ?? 'createdAt') !== 'status' ? ownedOrAssignedRuns(scope, 'c.created_by', 'c.assigned_to') : undefined,
  });
}

export const findComplaint = (db: Db, id: number, scope: Expression<SqlBool>) =>
  selectComplaints(db).where('c.id', '=', id).where(scope).executeTakeFirst();

/** Id and status of a complaint in `scope` (the checks before a change). */
export const findState = (db: Db, id: number, scope: Expression<SqlBool>) =>
  db
    .selectFrom('complaints as c')
    .select(['c.id', 'c.status', 'c.customer_id', 'c.label', 'c.public_id'])
    .where('c.id', '=', id)
    .where(scope)
    .executeTakeFirst();

/** The fields of a complaint the audit log compares (lib/audit.ts), as stored. */
export const auditedRow = (db: Db, id: number) =>
  db
    .selectFrom('complaints')
    .select(['label', 'description', 'location', 'amount_paid', 'time_lost', 'customer_id', 'complaint_type_id', 'status', 'assigned_to'])
    .where('id', '=', id)
    .executeTakeFirst();

export const statusOf = async (db: Db, id: number) =>
  (await db.selectFrom('complaints').select('status').where('id', '=', id).executeTakeFirst())?.status;

export const attachmentsOf = (db: Db, complaintId: number) =>
  db
    .selectFrom('complaint_attachments')
    .select(['id', 'filename', 'mime_type'])
    .where('complaint_id', '=', complaintId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** Status history, oldest first, with the display name of each author. */
export const historyOf = (db: Db, complaintId: number) =>
  db
    .selectFrom('complaint_status_history as h')
    .innerJoin('complaints as c', 'c.id', 'h.complaint_id')
    .leftJoin('users as u', 'u.id', 'h.created_by')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .leftJoin('actors as cu', 'cu.id', 'c.customer_id')
    .select([
      'h.id',
      'h.status',
      'h.comment',
      'h.created_by_type',
      'h.created_at',
      'u.id as user_id',
      'u.username',
      'a.first_name',
      'a.last_name',
      'cu.id as customer_id',
      'cu.first_name as customer_first_name',
      'cu.last_name as customer_last_name',
    ])
    .where('h.complaint_id', '=', complaintId)
    .orderBy('h.created_at')
    .orderBy('h.id')
    .execute();
export type HistoryRow = Awaited<ReturnType<typeof historyOf>>[number];

export const notificationsOf = (db: Db, complaintId: number) =>
  db
    .selectFrom('complaint_notifications')
    .selectAll()
    .where('complaint_id', '=', complaintId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();

/** The transport, when the caller can see it (ownership of its creator). */
export const findTransport = (db: Db, id: number, scope: Expression<SqlBool>) =>
  db
    .selectFrom('transports as t')
    .select(['t.id', 't.loading_number', 't.customer_id'])
    .where('t.id', '=', id)
    .where(scope)
    .executeTakeFirst();

export const complaintOfTransport = async (db: Db, transportId: number) =>
  (await db.selectFrom('complaints').select('id').where('transport_id', '=', transportId).executeTakeFirst())?.id;

/** An active user of a level that may handle complaints, within `scope` (on `u.organization_id`). */
export const findAssignee = (db: Db, id: number, scope: Expression<SqlBool>) =>
  db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .select(['u.id', 'u.username'])
    .where('u.id', '=', id)
    .where('u.is_active', '=', true)
    .where('r.access_level', 'in', ['agent', 'team_manager', 'supervisor'])
    .where(scope)
    .executeTakeFirst();

/** Every row that passes the filters, for an export: ids in order from the base table, joined rows per batch. */
export function exportBatches(db: Db, scope: Expression<SqlBool>, f: ComplaintFilters) {
  return keysetBatches(listBase(db, scope, f).select('c.id'), 'c.id', (ids) =>
    selectComplaints(db).where('c.id', 'in', ids).orderBy('c.id').execute(),
  );
}
