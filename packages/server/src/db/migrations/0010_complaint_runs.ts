import { type Kysely, sql } from 'kysely';

/*
 * An agent's complaint list ("mine or assigned to me", by creation or update date) is read as two
 * index ranges merged (lib/paging.ts `Runs`): the complaints they created and those assigned to
 * them, each in the list's order. An OR of two columns has no index that serves it in order: the
 * page walked the whole table's date order and skipped the other agents' complaints (1,700 rows
 * read for a page of 10 at 100k complaints). The assignee's single-column index is replaced by the
 * assignee's ranges, which serve every lookup it served (same leading column).
 * Frozen in time: never import application code here.
 */

const indexes: Array<[string, string]> = [
  ['complaints_created_by_updated_at_id_idx', 'complaints (created_by, updated_at, id)'],
  ['complaints_assigned_to_created_at_id_idx', 'complaints (assigned_to, created_at, id)'],
  ['complaints_assigned_to_updated_at_id_idx', 'complaints (assigned_to, updated_at, id)'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, on] of indexes) await sql.raw(`create index ${name} on ${on}`).execute(db);
  await sql.raw('drop index if exists complaints_assigned_to_idx').execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('create index if not exists complaints_assigned_to_idx on complaints (assigned_to)').execute(db);
  for (const [name] of [...indexes].reverse()) await sql.raw(`drop index if exists ${name}`).execute(db);
}
