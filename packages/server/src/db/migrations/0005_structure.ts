import { type Kysely, sql } from 'kysely';

/**
 * One constraint per unique configuration name: the case-insensitive indexes of 0002 already refuse
 * what the case-sensitive constraints of 0001 refuse, so those go, and a duplicate name is always
 * reported under the lower(name) index (vehicle types' handlers knew only the case-sensitive one).
 */
const caseSensitive = [
  ['categories', 'categories_scope_name_key', 'unique (scope, name)'],
  ['tags', 'tags_name_key', 'unique (name)'],
  ['complaint_types', 'complaint_types_name_key', 'unique (name)'],
  ['vehicle_types', 'vehicle_types_name_key', 'unique (name)'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, constraint] of caseSensitive) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(constraint)}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, constraint, definition] of caseSensitive) {
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(constraint)} ${sql.raw(definition)}`.execute(db);
  }
}
