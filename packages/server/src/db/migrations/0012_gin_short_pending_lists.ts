import { type Kysely, sql } from 'kysely';

/*
 * GIN indexes (the trigram indexes of text search, the tutorials' search vector) keep a short
 * pending list. New rows wait in an unsorted list that every search reads in full until it is
 * merged, and the planner prices that list: with the default limit (4 MB), after about 1,100 new
 * transports on a table of 10,000 (fewer than autovacuum waits for), a search that matched nothing
 * was planned as a sequential scan, 30-40 ms instead of 1.5 ms. Without a pending list (fastupdate
 * off) every insert updated six GIN indexes in place: creating a transport cost 5.5-6.6 ms instead
 * of 3.5-4.1. With a 64 kB limit the insert that fills the list merges it (creating a transport:
 * 4.0 ms), and a search reads at most 8 pending pages per index whenever vacuum last ran.
 * Indexes created later set the same limit (test/db/gin-indexes.test.ts).
 * Frozen in time: never import application code here.
 */

const LIMIT_KB = 64;

const ginIndexes = sql<{ name: string }>`
  select c.relname as name from pg_index i
  join pg_class c on c.oid = i.indexrelid
  join pg_am am on am.oid = c.relam
  join pg_namespace n on n.oid = c.relnamespace
  where am.amname = 'gin' and n.nspname = current_schema()
  order by 1`;

export async function up(db: Kysely<any>): Promise<void> {
  const { rows } = await ginIndexes.execute(db);
  for (const { name } of rows) {
    await sql`alter index ${sql.id(name)} set (gin_pending_list_limit = ${sql.lit(LIMIT_KB)})`.execute(db);
    // The limit applies to later writes: what is already pending is merged now.
    await sql`select gin_clean_pending_list(${name}::regclass)`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const { rows } = await ginIndexes.execute(db);
  for (const { name } of rows) await sql`alter index ${sql.id(name)} reset (gin_pending_list_limit)`.execute(db);
}
