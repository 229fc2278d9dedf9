import { type Kysely, sql } from 'kysely';

/**
 * A copy of a database's data kept inside the database itself, and put back by SQL: the sandbox's
 * reset. Every table of `public` (but the migration bookkeeping) is copied once into the schema
 * `sandbox_snapshot`, with the sequences' positions, and gets a statement trigger that notes the
 * table as changed. A restore empties the changed tables and copies their rows back, and puts
 * every sequence back, in one transaction with triggers and foreign-key checks off (the copy is
 * consistent, and the counters the triggers keep are copied too). A reset after a few requests
 * touches a few tables: a handful of statements.
 *
 * Why not reopen the database from a dump: a new PGlite instance costs 0.5-1 s of CPU on the event
 * loop, so a spare loaded in advance made a reset fast only when resets were seconds apart
 * (back-to-back resets took 0.8-1.2 s each), and the dump and the spare held two more databases in
 * memory. The demo data is a few thousand rows: copying it back takes tens of milliseconds.
 */
const SCHEMA = 'sandbox_snapshot';
/** The tables written since the last restore (a table of SCHEMA no public table is named after). */
const CHANGED = '_changed';
const SKIPPED = new Set(['kysely_migration', 'kysely_migration_lock']);

interface Table {
  name: string;
  /** The columns a row can be inserted with (generated columns are computed again). */
  columns: string[];
  /** Has a `generated always as identity` column, whose value must be given explicitly. */
  identityAlways: boolean;
}
interface Snapshot {
  tables: Table[];
  sequences: Array<{ name: string; value: number | null }>;
}

const SNAPSHOT = Symbol('snapshot');
type WithSnapshot = { [SNAPSHOT]?: Snapshot };

/** Copies the data of `db` aside; `restoreSnapshot` puts it back. */
export async function takeSnapshot(db: Kysely<any>): Promise<void> {
  const snapshot = await db.transaction().execute(async (trx) => {
    const { rows: columns } = await sql<{ table: string; column: string; generated: string; identity: string | null }>`
      select c.table_name as table, c.column_name as column, c.is_generated as generated, c.identity_generation as identity
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
      order by c.table_name, c.ordinal_position`.execute(trx);
    const tables = new Map<string, Table>();
    for (const c of columns) {
      if (SKIPPED.has(c.table)) continue;
      const table = tables.get(c.table) ?? { name: c.table, columns: [], identityAlways: false };
      if (c.generated !== 'ALWAYS') table.columns.push(c.column);
      if (c.identity === 'ALWAYS') table.identityAlways = true;
      tables.set(c.table, table);
    }
    await sql`drop schema if exists ${sql.id(SCHEMA)} cascade`.execute(trx);
    await sql`create schema ${sql.id(SCHEMA)}`.execute(trx);
    await sql`create table ${sql.id(SCHEMA, CHANGED)} (name text primary key)`.execute(trx);
    await sql
      .raw(`create function ${SCHEMA}.mark_changed() returns trigger language plpgsql as $$
        begin
          insert into ${SCHEMA}.${CHANGED} (name) values (tg_table_name) on conflict do nothing;
          return null;
        end $$`)
      .execute(trx);
    for (const table of tables.values()) {
      await sql`create table ${sql.id(SCHEMA, table.name)} as table ${sql.id('public', table.name)}`.execute(trx);
      await sql`create trigger sandbox_snapshot_changed after insert or update or delete or truncate on ${sql.id('public', table.name)}
        for each statement execute function ${sql.id(SCHEMA, 'mark_changed')}()`.execute(trx);
    }
    const { rows: sequences } = await sql<{ name: string; value: number | null }>`
      select sequencename as name, last_value as value from pg_sequences where schemaname = 'public'`.execute(trx);
    return { tables: [...tables.values()], sequences };
  });
  (db as WithSnapshot)[SNAPSHOT] = snapshot;
}

/** Puts back the data `takeSnapshot` copied; false when no snapshot was taken of `db`. */
export async function restoreSnapshot(db: Kysely<any>): Promise<boolean> {
  const snapshot = (db as WithSnapshot)[SNAPSHOT];
  if (!snapshot) return false;
  await db.transaction().execute(async (trx) => {
    // Triggers (counters, foreign keys, the change marks) stay off for this transaction's copy.
    await sql`set local session_replication_role = replica`.execute(trx);
    const { rows } = await sql<{ name: string }>`select name from ${sql.id(SCHEMA, CHANGED)}`.execute(trx);
    const changed = new Set(rows.map((r) => r.name));
    for (const table of snapshot.tables) {
      if (!changed.has(table.name)) continue;
      // delete, not truncate: a table others reference cannot be truncated alone.
      await sql`delete from ${sql.id('public', table.name)}`.execute(trx);
      const columns = sql.join(table.columns.map((c) => sql.id(c)));
      const overriding = table.identityAlways ? sql`overriding system value` : sql``;
      await sql`insert into ${sql.id('public', table.name)} (${columns}) ${overriding}
        select ${columns} from ${sql.id(SCHEMA, table.name)}`.execute(trx);
    }
    // Sequences move even in transactions that failed: every one goes back, in one statement.
    const positions = snapshot.sequences.map(({ name, value }) => {
      const sequence = sql`format('%I.%I', 'public', ${name}::text)::regclass`;
      return value === null ? sql`setval(${sequence}, 1, false)` : sql`setval(${sequence}, ${value})`;
    });
    if (positions.length) await sql`select ${sql.join(positions)}`.execute(trx);
    await sql`delete from ${sql.id(SCHEMA, CHANGED)}`.execute(trx);
  });
  return true;
}
