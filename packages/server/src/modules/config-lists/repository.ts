import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';

/** The tables of the administrators' configuration lists: every one has `id`, `is_active` and `updated_at`. */
export type ConfigTable = 'categories' | 'tags' | 'vehicle_types' | 'complaint_types' | 'roles' | 'countries' | 'states';
export type Db = Kysely<Database>;

// Kysely cannot resolve columns on a union of tables; the values are typed by the caller's table.
const loose = (db: Db) => db as unknown as Kysely<any>;

/** Locks the row until the end of the transaction (writers that refer to it wait); false when absent. */
export async function lockRow(trx: Db, table: ConfigTable, id: number): Promise<boolean> {
  return (await loose(trx).selectFrom(table).select('id').where('id', '=', id).forUpdate().executeTakeFirst()) !== undefined;
}

export async function insertRow<T extends ConfigTable>(trx: Db, table: T, values: Insertable<Database[T]>): Promise<number> {
  const row = await loose(trx)
    .insertInto(table as string)
    .values(values)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id as number;
}

export async function updateRow<T extends ConfigTable>(trx: Db, table: T, id: number, values: Updateable<Database[T]>): Promise<void> {
  await loose(trx)
    .updateTable(table as string)
    .set(Object.assign({}, values as Record<string, unknown>, { updated_at: new Date() }))
    .where('id', '=', id)
    .execute();
}

export async function deleteRow(trx: Db, table: ConfigTable, id: number): Promise<void> {
  await loose(trx).deleteFrom(table).where('id', '=', id).execute();
}
