import { sql, type Kysely } from 'kysely';
import type { components } from '@transport-ops/contract';
import type { Database } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import { containing } from '../../lib/text.js';

type ComplaintTypeAdmin = components['schemas']['ComplaintTypeAdmin'];
type ComplaintType = components['schemas']['ComplaintType'];

export interface TypeFilters {
  search?: string;
  isActive?: boolean;
}

/** Complaint types with the number of complaints using each. */
function selectTypes(db: Kysely<Database>) {
  return db
    .selectFrom('complaint_types as ct')
    .select([
      'ct.id',
      'ct.name',
      'ct.description',
      'ct.is_active',
      'ct.created_at',
      'ct.updated_at',
      (eb) =>
        eb
          .selectFrom('complaints as c')
          .whereRef('c.complaint_type_id', '=', 'ct.id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('usage_count'),
    ]);
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

export function listTypesQuery(db: Kysely<Database>, filters: TypeFilters) {
  let query = selectTypes(db).orderBy('ct.name').orderBy('ct.id');
  if (filters.search !== undefined) {
    const pattern = containing(filters.search);
    query = query.where((eb) => eb.or([eb('ct.name', 'ilike', pattern), eb('ct.description', 'ilike', pattern)]));
  }
  if (filters.isActive !== undefined) query = query.where('ct.is_active', '=', filters.isActive);
  return query;
}

export const findType = (db: Kysely<Database>, id: number) => selectTypes(db).where('ct.id', '=', id).executeTakeFirst();

/** Another type whose name equals `name` ignoring case (names are unique case-insensitively). */
export async function nameTaken(db: Kysely<Database>, name: string, exceptId?: number): Promise<boolean> {
  let query = db.selectFrom('complaint_types').select('id').where(sql<string>`lower(name)`, '=', name.toLowerCase());
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertType(db: Kysely<Database>, input: { name: string; description: string | null }): Promise<number> {
  const row = await db.insertInto('complaint_types').values(input).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateType(
  db: Kysely<Database>,
  id: number,
  changes: { name?: string; description?: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('complaint_types')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Sets the flag; a call with the current value changes nothing (not even updated_at). */
export async function setTypeActive(db: Kysely<Database>, id: number, isActive: boolean): Promise<void> {
  await db
    .updateTable('complaint_types')
    .set({ is_active: isActive, updated_at: new Date() })
    .where('id', '=', id)
    .where('is_active', '<>', isActive)
    .execute();
}

export async function deleteType(db: Kysely<Database>, id: number): Promise<boolean> {
  const result = await db.deleteFrom('complaint_types').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function countUsage(db: Kysely<Database>, id: number): Promise<number> {
  const row = await db
    .selectFrom('complaints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('complaint_type_id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
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
  const row = await db
    .selectFrom('complaint_types')
    .select('id')
    .where('id', '=', id)
    .where('is_active', '=', true)
    .executeTakeFirst();
  return row !== undefined;
}

