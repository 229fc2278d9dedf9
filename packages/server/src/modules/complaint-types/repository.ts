import type { Kysely } from 'kysely';
import type { components } from '@transport-ops/contract';
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

export function listComplaintTypes(db: Kysely<Database>, q: Req<'listConfigComplaintTypes'>['query']) {
  let query = selectTypes(db).orderBy('ct.name').orderBy('ct.id');
  if (q.search !== undefined) {
    const pattern = containing(q.search);
    query = query.where((eb) => eb.or([eb('ct.name', 'ilike', pattern), eb('ct.description', 'ilike', pattern)]));
  }
  if (q.isActive !== undefined) query = query.where('ct.is_active', '=', q.isActive);
  return query;
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
