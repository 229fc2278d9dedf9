import { type Kysely, sql } from 'kysely';

/*
 * A team manager's statistics and totals are computed over their organization subtree and its
 * users. Cached answers (lib/stats-cache.ts) are invalidated by change counters: moving an
 * organization in the tree or a user to another organization changes a team without writing any
 * counted table, so the tree and the memberships get counters of their own. Only the columns that
 * shape a team advance them (a login's timestamps do not).
 * Frozen in time: never import application code here.
 */

const COUNTED: Array<[string, string]> = [
  ['organizations', 'parent_id'],
  ['users', 'organization_id'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, columns] of COUNTED) {
    await sql.raw(`create sequence ${table}_change_seq`).execute(db);
    await sql
      .raw(`create trigger ${table}_change_counter after insert or delete or truncate or update of ${columns} on ${table}
        for each statement execute function bump_change_counter()`)
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table] of COUNTED) {
    await sql.raw(`drop trigger if exists ${table}_change_counter on ${table}`).execute(db);
    await sql.raw(`drop sequence if exists ${table}_change_seq`).execute(db);
  }
}
