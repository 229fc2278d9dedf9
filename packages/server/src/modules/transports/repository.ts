import type { operations } from '@transport-ops/contract';
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { Database, TransportStatus } from '../../db/schema.js';
import { type Ownership, ownedBy, ownedByScope, ownership, teamOwners, teamUserIds } from '../../lib/scope.js';
import { queryShape } from '../../lib/query-shape.js';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { AuthContext } from '../../lib/identity.js';
import { containing } from '../../lib/text.js';
import type { Query, SharedQuery } from '../../http/handlers.js';
import { keysetBatches } from '../../lib/keyset-batches.js';
import { fetchKeysetPage, type PerOwner, type SortKey, totalsCache } from '../../lib/paging.js';

export type Db = Kysely<Database>;

/** A transport with its vehicle type, customer and creator: the columns every shape is mapped from. */
function transportQuery(db: Db) {
  return db
    .selectFrom('transports as t')
    .innerJoin('vehicle_types as vt', 'vt.id', 't.vehicle_type_id')
    .leftJoin('actors as c', 'c.id', 't.customer_id')
    .innerJoin('users as u', 'u.id', 't.created_by')
    .leftJoin('actors as ua', 'ua.id', 'u.actor_id')
    .select([
      't.id',
      't.public_id',
      't.loading_number',
      't.charger_first_name',
      't.charger_last_name',
      't.charger_phone',
      't.charger_email',
      't.loading_point',
      't.unloading_point',
      't.vehicle_plate_number',
      't.product_label',
      't.product_quantity',
      't.average_weight',
      't.average_unit_price',
      't.total_product_value',
      't.status',
      't.validation_level',
      't.created_at',
      't.updated_at',
      't.loading_latitude',
      't.loading_longitude',
      't.unloading_latitude',
      't.unloading_longitude',
      't.loading_window_start',
      't.loading_window_end',
      't.unloading_window_start',
      't.unloading_window_end',
      'vt.id as vt_id',
      'vt.name as vt_name',
      'vt.description as vt_description',
      'vt.max_weight as vt_max_weight',
      'vt.category as vt_category',
      'c.id as c_id',
      'c.first_name as c_first_name',
      'c.last_name as c_last_name',
      'c.email as c_email',
      'c.phone as c_phone',
      'c.address as c_address',
      'c.created_at as c_created_at',
      'u.id as u_id',
      'u.username as u_username',
      'ua.first_name as u_first_name',
      'ua.last_name as u_last_name',
    ]);
}
export type TransportRow = NonNullable<Awaited<ReturnType<ReturnType<typeof transportQuery>['executeTakeFirst']>>>;

export interface TransportRecord {
  row: TransportRow;
  documents: DocumentRow[];
  complaints: ComplaintRefRow[];
}

// The detail's statements, compiled once (lib/query-shape.ts).
const documentsOf = queryShape({ values: ['transportId'] }, (db, p: { transportId: number }) =>
  db
    .selectFrom('transport_documents')
    .select(['id', 'type', 'filename', 'mime_type', 'size', 'uploaded_at'])
    .where('transport_id', '=', p.transportId)
    .orderBy('uploaded_at')
    .orderBy('id'),
);
export type DocumentRow = Awaited<ReturnType<typeof documentsOf.execute>>[number];

const complaintsOf = queryShape({ values: ['transportId'] }, (db, p: { transportId: number }) =>
  db.selectFrom('complaints').select(['id', 'label', 'status', 'created_at']).where('transport_id', '=', p.transportId).orderBy('id'),
);
export type ComplaintRefRow = Awaited<ReturnType<typeof complaintsOf.execute>>[number];

/** Every transport: the scope of a reload after a write (the writer's access was checked first). */
const ANY_OWNER: Ownership = { scope: 'all', ownerId: 0, teamId: undefined };

const transportById = queryShape(
  { values: ['id', 'ownerId', 'teamId'], structure: ['scope', 'forUpdate'] },
  (db, p: Ownership & { id: number; forUpdate: boolean }) => {
    const query = transportQuery(db).where('t.id', '=', p.id).where(ownedByScope(p, 't.created_by'));
    // The transport's own row only (the joined rows are not the resource's to lock).
    return p.forUpdate ? query.forUpdate('t') : query;
  },
);

/**
 * A transport with its documents and complaint; undefined when absent or, given the caller's
 * ownership rule, outside it (one statement checks both: a detail is three statements, not four).
 * With `forUpdate`, the first statement locks the transport's row for the rest of the transaction.
 */
export async function loadTransport(
  db: Db,
  id: number,
  owner: Ownership = ANY_OWNER,
  forUpdate = false,
): Promise<TransportRecord | undefined> {
  const row = await transportById.executeTakeFirst(db, Object.assign({ id, forUpdate }, owner));
  if (!row) return undefined;
  // One after the other: inside a transaction (one connection) queries cannot overlap.
  const documents = await documentsOf.execute(db, { transportId: id });
  const complaints = await complaintsOf.execute(db, { transportId: id });
  return { row, documents, complaints };
}

const visibleById = queryShape({ values: ['id', 'ownerId', 'teamId'], structure: ['scope'] }, (db, p: Ownership & { id: number }) =>
  db
    .selectFrom('transports as t')
    .select(['t.id', 't.status', 't.validation_level', 't.vehicle_type_id'])
    .where('t.id', '=', p.id)
    .where(ownedByScope(p, 't.created_by')),
);

/** The transport's id, status and vehicle type when the caller may see it. */
export function findVisible(db: Db, auth: AuthContext, id: number) {
  return visibleById.executeTakeFirst(db, Object.assign({ id }, ownership(auth)));
}

export async function currentStatus(db: Db, id: number): Promise<TransportStatus | undefined> {
  const row = await db.selectFrom('transports').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}

/** The filters of both transport lists; `createdBy` and `organizationId` are the administrators' own. */
export type TransportFilters = Omit<SharedQuery<'listTransports', 'listAdminTransports'>, 'page' | 'limit'> &
  Pick<Query<'listAdminTransports'>, 'createdBy' | 'organizationId'>;

const SORT_KEYS: Record<NonNullable<TransportFilters['sortBy']>, SortKey> = {
  createdAt: { column: 't.created_at', type: 'timestamptz' },
  loadingNumber: { column: 't.loading_number', type: 'text' },
  status: { column: 't.status', type: 'text' },
};

/** The query parameters of the transport lists and their export, as the contract declares them. */
export type ListParameters = NonNullable<operations['listTransports']['parameters']['query']> &
  NonNullable<operations['listAdminTransports']['parameters']['query']> &
  NonNullable<operations['exportTransportsReport']['parameters']['query']>;

const transportsFrom = (db: Db) => db.selectFrom('transports as t');
type Where = WhereOf<ReturnType<typeof transportsFrom>>;

/** The searched texts joined, exactly as migration 0019's index `transports_created_by_search_trgm_idx` holds them. */
const SEARCH_TEXT = sql<string>`(t.loading_number || ' ' || coalesce(t.product_label, '') || ' ' || t.loading_point || ' ' || coalesce(t.unloading_point, ''))`;

/**
 * Each filter of the transport lists, declared once (lib/filter-spec.ts): the list page, its count
 * and the CSV export apply them all through `baseQuery`, the query shape binds each (its presence
 * picks the statement), and `FILTER_COLUMNS` is what they read. Typed from the contract: a query
 * parameter of `listTransports`, `listAdminTransports` or `exportTransportsReport` that is neither
 * here nor a paging one is a type error ("Property 'x' is missing"). The order is the order of the
 * conditions in the statement; `columns` are the columns of `transports` each reads besides the
 * sort keys, which the team walk's covering index must carry (migration 0013).
 */
export const FILTERS: FilterSpecs<ListParameters, Where> = {
  status: { bind: same, where: (eb, v) => eb('t.status', '=', v as TransportStatus), columns: ['t.status'] },
  vehicleTypeId: { bind: same, where: (eb, v) => eb('t.vehicle_type_id', '=', v as number), columns: ['t.vehicle_type_id'] },
  customerId: { bind: same, where: (eb, v) => eb('t.customer_id', '=', v as number), columns: ['t.customer_id'] },
  createdBy: { bind: same, where: (eb, v) => eb('t.created_by', '=', v as number), columns: ['t.created_by'] },
  organizationId: { bind: same, where: (_eb, v) => sql<SqlBool>`t.created_by in (${teamUserIds(v as number)})`, columns: ['t.created_by'] },
  loadingPoint: {
    bind: containing,
    where: (eb, v) => eb('t.loading_point', 'ilike', v as string),
    columns: ['t.loading_point'],
    text: true,
  },
  unloadingPoint: {
    bind: containing,
    where: (eb, v) => eb('t.unloading_point', 'ilike', v as string),
    columns: ['t.unloading_point'],
    text: true,
  },
  startDate: { bind: (v) => new Date(v), where: (eb, v) => eb('t.created_at', '>=', v as Date), columns: [] },
  // Stored timestamps have microseconds, the API's milliseconds: the end is inclusive of its whole millisecond.
  endDate: { bind: (v) => new Date(Date.parse(v) + 1), where: (eb, v) => eb('t.created_at', '<', v as Date), columns: [] },
  search: {
    bind: containing,
    // The four texts joined match whenever one does: one scan of migration 0019's trigram index
    // over them (with the creator), then each text is checked. Four OR'ed index scans looked dearer
    // to the planner than walking a busy agent's 10,000 rows by date for a long term (35 ms at 1M).
    where: (eb, v) =>
      eb.and([
        eb(SEARCH_TEXT, 'ilike', v as string),
        eb.or([
          eb('t.loading_number', 'ilike', v as string),
          eb('t.product_label', 'ilike', v as string),
          eb('t.loading_point', 'ilike', v as string),
          eb('t.unloading_point', 'ilike', v as string),
        ]),
      ]),
    columns: ['t.loading_number', 't.product_label', 't.loading_point', 't.unloading_point'],
    text: true,
  },
};
const FILTER = filters(FILTERS);

/** The filters of the base query, with their values as the statement binds them (undefined: not filtered). */
type BaseParams = Ownership & BoundFilters<ListParameters>;

const baseParams = (auth: AuthContext, f: TransportFilters): BaseParams => FILTER.bind(f, ownership(auth));

/** Every column of `transports` that the filters read (the sort keys aside), once each. */
export const FILTER_COLUMNS: readonly string[] = [...new Set(['t.created_by', ...FILTER.columns])];

function baseQuery(db: Db, p: BaseParams) {
  return FILTER.apply(transportsFrom(db).where(ownedByScope(p, 't.created_by')), p);
}

/** The base query as a query shape: compiled once per scope and combination of filters. */
const baseShape = queryShape<BaseParams, unknown>(
  { values: ['ownerId', 'teamId', ...FILTER.values], structure: ['scope', ...FILTER.structure] },
  baseQuery,
);

/** The transports the caller may see that pass the filters: the base table only, no joins. */
export function listBase(db: Db, auth: AuthContext, f: TransportFilters) {
  return baseQuery(db, baseParams(auth, f));
}

/** Transports by id, joined (any order). */
const transportsById = queryShape({ values: ['ids'] }, (db, p: { ids: number[] }) =>
  transportQuery(db).where('t.id', '=', sql<number>`any(${p.ids})`),
);

/** Totals of the transports lists, reused while no transport changes (paging through a filtered list counts it once). */
const totals = totalsCache('transports');

/**
 * A team's transports read member by member (paging's PerOwner) when members × the team's
 * transports (the roll-up of migration 0009) < the table's rows (the planner's count of them).
 */
function byMember(params: BaseParams): PerOwner | undefined {
  const team = teamOwners(params, 't.created_by');
  if (!team) return undefined;
  return Object.assign({}, team, {
    // The columns baseQuery's filters read: migration 0013's covering index on (created_by, created_at, id) holds them all.
    columns: FILTER_COLUMNS,
    worthIt: (
      members: Expression<unknown>,
    ) => sql<SqlBool>`(select count(*) from unnest(${members})) * (select coalesce(sum(c.transports), 0)
      from transport_user_counts c where c.created_by = any(${members})) < (select reltuples from pg_class where oid = 'transports'::regclass)`,
  });
}

/** One page of the caller's transports: ids by keyset or offset, then their joined rows, and the total. */
export function listPage(db: Db, auth: AuthContext, f: TransportFilters & { page: number; limit: number; cursor?: string }) {
  const params = baseParams(auth, f);
  return fetchKeysetPage(db, baseShape.with(params), {
    keys: [SORT_KEYS[f.sortBy ?? 'createdAt'], { column: 't.id', type: 'integer' }],
    direction: f.sortOrder === 'ASC' ? 'asc' : 'desc',
    page: f.page,
    limit: f.limit,
    cursor: f.cursor,
    load: (ids) => transportsById.execute(db, { ids }),
    idOf: (row) => row.id,
    totals,
    // A team's newest first with a text filter: member by member on (created_by, created_at, id), when
    // the team's share of the table is small. Without one, the whole order's walk passes one team row in
    // (team's share) and costs less than the two plans' planning (measured: 1.1 vs 2.3 ms at 10k, 2.0 vs 4.0 at 1M).
    perOwner: (f.sortBy ?? 'createdAt') === 'createdAt' && FILTER.textFiltered(params) ? byMember(params) : undefined,
  });
}

/** Status history, oldest first, with the name of each author. */
export function statusHistory(db: Db, transportId: number) {
  return db
    .selectFrom('transport_status_history as h')
    .innerJoin('users as u', 'u.id', 'h.created_by')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .select([
      'h.id',
      'h.transport_id',
      'h.from_status',
      'h.to_status',
      'h.action',
      'h.validation_level',
      'h.comment',
      'h.created_at',
      'u.id as user_id',
      sql<string>`coalesce(nullif(btrim(concat_ws(' ', a.first_name, a.last_name)), ''), u.username)`.as('user_name'),
    ])
    .where('h.transport_id', '=', transportId)
    .orderBy('h.created_at')
    .orderBy('h.id')
    .execute();
}

/** Who gave the current level-1 validation of a pending transport (its latest level-1 VALIDATE entry). */
export async function levelOneValidator(db: Db, transportId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('transport_status_history')
    .select('created_by')
    .where('transport_id', '=', transportId)
    .where('action', '=', 'VALIDATE')
    .where('validation_level', '=', 1)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.created_by;
}

/** The active vehicle types offered for new transports, by name. */
export function activeVehicleTypes(db: Db) {
  return db
    .selectFrom('vehicle_types')
    .select(['id', 'name', 'description', 'max_weight', 'category', 'is_active'])
    .where('is_active', '=', true)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** A document of a transport the caller may see. */
export function findVisibleDocument(db: Db, auth: AuthContext, documentId: number) {
  return db
    .selectFrom('transport_documents as d')
    .innerJoin('transports as t', 't.id', 'd.transport_id')
    .select(['d.filename', 'd.mime_type', 'd.size', 'd.storage_key'])
    .where('d.id', '=', documentId)
    .where(ownedBy(auth, 't.created_by'))
    .executeTakeFirst();
}

export async function complaintCount(db: Db, transportId: number): Promise<number> {
  const row = await db
    .selectFrom('complaints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('transport_id', '=', transportId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every row that passes the filters, for an export: ids in order from the base table, joined rows per batch. */
export function exportBatches(db: Db, auth: AuthContext, f: TransportFilters) {
  return keysetBatches(listBase(db, auth, f).select('t.id'), 't.id', (ids) =>
    transportQuery(db).where('t.id', 'in', ids).orderBy('t.id').execute(),
  );
}
