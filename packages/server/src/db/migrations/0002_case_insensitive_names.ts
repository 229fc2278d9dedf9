import { type Kysely, sql } from 'kysely';

/**
 * Names the contract declares unique regardless of case get unique indexes on lower(name), so the
 * database (not only the application's check) refuses "Frozen" next to "frozen", also under
 * concurrent writes. Vehicle types always have a maximum weight.
 */
const statements = [
  `create unique index categories_scope_lower_name_key on categories (scope, lower(name))`,
  `create unique index tags_lower_name_key on tags (lower(name))`,
  `create unique index vehicle_types_lower_name_key on vehicle_types (lower(name))`,
  `create unique index complaint_types_lower_name_key on complaint_types (lower(name))`,
  `create unique index actors_role_lower_email_key on actors (actor_role, lower(email)) where email is not null`,
  `update vehicle_types set max_weight = 0 where max_weight is null`,
  `alter table vehicle_types alter column max_weight set not null`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table vehicle_types alter column max_weight drop not null`.execute(db);
  for (const index of [
    'actors_role_lower_email_key',
    'complaint_types_lower_name_key',
    'vehicle_types_lower_name_key',
    'tags_lower_name_key',
    'categories_scope_lower_name_key',
  ]) {
    await sql`drop index if exists ${sql.id(index)}`.execute(db);
  }
}
