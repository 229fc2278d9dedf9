import { type Kysely, sql } from 'kysely';

/*
 * A team manager's pages read from indexes alone.
 * - Transports with a text filter are read member by member on (created_by, created_at, id)
 *   (lib/paging.ts PerOwner), each member's newest rows until enough pass the filters. Every row
 *   walked was read from the table for its filtered columns: at 1M transports, a team of 12 and an
 *   `unloadingPoint=` filter read 1,700 rows from the table (5.3 ms). The index now includes every
 *   column the list's filters read, and the walk is an index-only scan (1.6 ms).
 * - Complaints with a status filter are walked on (status, created_at, id), skipping other teams'
 *   complaints; the creator's id was read from the table for each (530 rows at 100k complaints).
 *   The index now includes the creator and the assignee.
 * The two indexes these replace are dropped, and on each table three older ones whose keys lead
 * newer ones in the same order (`created_at desc` alone, `(status, created_at desc)`,
 * `(created_by, created_at desc)`: a btree is read both ways): every insert updated them all.
 * Frozen in time: never import application code here.
 */

const created: Array<[string, string]> = [
  [
    'transports_created_by_created_at_id_cover_idx',
    'transports (created_by, created_at, id) include (status, vehicle_type_id, customer_id, loading_number, product_label, loading_point, unloading_point)',
  ],
  ['complaints_status_created_at_id_cover_idx', 'complaints (status, created_at, id) include (created_by, assigned_to)'],
];

const dropped: Array<[string, string]> = [
  ['transports_created_by_created_at_id_idx', 'transports (created_by, created_at, id)'],
  ['transports_created_by_idx', 'transports (created_by, created_at desc)'],
  ['transports_created_at_idx', 'transports (created_at desc)'],
  ['transports_status_created_at_idx', 'transports (status, created_at desc)'],
  ['complaints_status_created_at_id_idx', 'complaints (status, created_at, id)'],
  ['complaints_status_created_at_idx', 'complaints (status, created_at desc)'],
  ['complaints_created_at_idx', 'complaints (created_at desc)'],
  ['complaints_created_by_idx', 'complaints (created_by, created_at desc)'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, on] of created) await sql.raw(`create index ${name} on ${on}`).execute(db);
  for (const [name] of dropped) await sql.raw(`drop index if exists ${name}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name, on] of dropped) await sql.raw(`create index if not exists ${name} on ${on}`).execute(db);
  for (const [name] of created) await sql.raw(`drop index if exists ${name}`).execute(db);
}
