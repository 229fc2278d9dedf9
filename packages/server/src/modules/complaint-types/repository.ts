import type { Kysely } from 'kysely';
import type { components, operations } from '@transport-ops/contract';
import { type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { Database } from '../../db/schema.js';
import type { Req } from '../../http/handlers.js';
import { iso } from '../../lib/time.js';
import { containing } from '../../lib/text.js';
import { liveCount } from '../../lib/counters.js';

type ComplaintTypeAdmin = components['schemas']['ComplaintTypeAdmin'];
type ComplaintType = components['schemas']['ComplaintType'];

/** Complaint types with the number of complaints using each (a counter the database keeps, migrations 0008 and 0016). */
function selectTypes(db: Kysely<Database>) {
  return db
    .selectFrom('complaint_types as ct')
    .select(['ct.id', 'ct.name', 'ct.description', 'ct.is_active', 'ct.created_at', 'ct.updated_at'])
    .select(liveCount('complaint_types.complaints_count', 'ct').as('usage_count'));
}
type TypeRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectTypes>['executeTakeFirst']>>>;

export const toAdminType = (row: TypeRow): ComplaintTypeAdmin => ({
  id: row.id,
  name: row.name,
  description: row.description,
  isActive: row.is_active,
  usageCount: Number(row.usage_count ?? 0),
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

/** The query parameters of the administrators' list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listConfigComplaintTypes']['parameters']['query']>;

/**
 * Each filter of the complaint type list, declared once (lib/filter-spec.ts). Typed from the contract: a query
 * parameter of `listConfigComplaintTypes` with no entry here (and not a paging one) is a type error. The order
 * is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof selectTypes>>> = {
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('ct.name', 'ilike', v as string), eb('ct.description', 'ilike', v as string)]),
    columns: ['ct.name', 'ct.description'],
    text: true,
  },
  isActive: { bind: same, where: (eb, v) => eb('ct.is_active', '=', v as boolean), columns: ['ct.is_active'] },
};
const FILTER = filters(FILTERS);

export function listComplaintTypes(db: Kysely<Database>, q: Req<'listConfigComplaintTypes'>['query']) {
  return FILTER.apply(selectTypes(db), FILTER.bind(q, {})).orderBy('ct.name').orderBy('ct.id');
}

export async function findComplaintType(db: Kysely<Database>, id: number): Promise<ComplaintTypeAdmin | undefined> {
  const row = await selectTypes(db).where('ct.id', '=', id).executeTakeFirst();
  return row && toAdminType(row);
}

/** Complaints using the type: the counter the database keeps (migration 0008; exact under the row lock, see vehicleTypeUsage). */
export async function complaintTypeUsage(db: Kysely<Database>, id: number): Promise<number> {
  const row = await db
    .selectFrom('complaint_types as ct')
    .select(liveCount('complaint_types.complaints_count', 'ct').as('n'))
    .where('ct.id', '=', id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The user-side lookup list: active types only, by name. */
export async function activeTypes(db: Kysely<Database>): Promise<ComplaintType[]> {
  const rows = await db
    .selectFrom('complaint_types')
    .select(['id', 'name', 'description', 'is_active'])
    .where('is_active', '=', true)
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, description: r.description, isActive: r.is_active }));
}

/** True when the id is an active complaint type (the only ones new or changed complaints may use). */
export async function isActiveType(db: Kysely<Database>, id: number): Promise<boolean> {
  const row = await db.selectFrom('complaint_types').select('id').where('id', '=', id).where('is_active', '=', true).executeTakeFirst();
  return row !== undefined;
}
