import { type Kysely, sql } from 'kysely';

/**
 * A copy of a database's data kept inside the database itself, and put back by SQL: the sandbox's
 * reset. Every table of `public` (but the migration bookkeeping) is copied once into the schema
 * `sandbox_snapshot`, with the sequences' positions, and gets a statement trigger that notes the
 * table as changed. A restore is one call of `sandbox_snapshot.restore()`, in one transaction with
 * triggers and foreign-key checks off (the copy is consistent, and the counters the triggers keep
 * are copied too): it empties the changed tables, copies their rows back and puts every sequence
 * back. A reset after a few requests touches a few tables, all inside the database (no round trip
 * per table).
 *
 * Why not reopen the database from a dump: a new PGlite instance costs 0.5-1 s of CPU on the event
 * loop, so a spare loaded in advance made a reset fast only when resets were seconds apart
 * (back-to-back resets took 0.8-1.2 s each), and the dump and the spare held two more databases in
 * memory. The demo data is a few hundred rows: copying back what changed takes milliseconds.
 */
const SCHEMA = 'sandbox_snapshot';
const SKIPPED = ['kysely_migration', 'kysely_migration_lock'];

const SNAPSHOT = Symbol('snapshot');
type WithSnapshot = { [SNAPSHOT]?: true };

/** Copies the data of `db` aside; `restoreSnapshot` puts it back. */
export async function takeSnapshot(db: Kysely<any>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`drop schema if exists ${sql.id(SCHEMA)} cascade`.execute(trx);
    await sql`create schema ${sql.id(SCHEMA)}`.execute(trx);
    // The tables written since the last restore; the copied tables with the columns a row can be
    // inserted with (generated columns are computed again); the sequences' positions.
    await sql.raw(`create table ${SCHEMA}.changed_tables (name text primary key)`).execute(trx);
    await sql
      .raw(`create table ${SCHEMA}.saved_tables as
        select t.table_name as name,
          string_agg(format('%I', c.column_name), ', ' order by c.ordinal_position) filter (where c.is_generated <> 'ALWAYS') as columns,
          bool_or(c.identity_generation = 'ALWAYS') as identity_always
        from information_schema.tables t
        join information_schema.columns c on c.table_schema = t.table_schema and c.table_name = t.table_name
        where t.table_schema = 'public' and t.table_type = 'BASE TABLE' and t.table_name <> all(array['${SKIPPED.join("','")}'])
        group by t.table_name`)
      .execute(trx);
    await sql
      .raw(`create table ${SCHEMA}.saved_sequences as
        select sequencename as name, last_value as value from pg_sequences where schemaname = 'public'`)
      .execute(trx);
    await sql
      .raw(`create function ${SCHEMA}.mark_changed() returns trigger language plpgsql as $$
        begin
          insert into ${SCHEMA}.changed_tables (name) values (tg_table_name) on conflict do nothing;
          return null;
        end $$`)
      .execute(trx);
    await sql
      .raw(`create function ${SCHEMA}.restore() returns integer language plpgsql as $$
        declare
          t record;
          s record;
          n integer := 0;
        begin
          perform set_config('session_replication_role', 'replica', true);
          for t in select tb.* from ${SCHEMA}.saved_tables tb join ${SCHEMA}.changed_tables ch on ch.name = tb.name loop
            -- delete, not truncate: a table others reference cannot be truncated alone.
            execute format('delete from public.%I', t.name);
            execute format('insert into public.%I (%s) %s select %s from ${SCHEMA}.%I',
              t.name, t.columns, case when t.identity_always then 'overriding system value' else '' end, t.columns, t.name);
            n := n + 1;
          end loop;
          -- Sequences move even in transactions that failed: every one goes back.
          for s in select * from ${SCHEMA}.saved_sequences loop
            if s.value is null then
              perform setval(format('public.%I', s.name)::regclass, 1, false);
            else
              perform setval(format('public.%I', s.name)::regclass, s.value);
            end if;
          end loop;
          delete from ${SCHEMA}.changed_tables;
          return n;
        end $$`)
      .execute(trx);
    const { rows } = await sql<{ name: string }>`select name from ${sql.id(SCHEMA, 'saved_tables')}`.execute(trx);
    for (const { name } of rows) {
      await sql`create table ${sql.id(SCHEMA, name)} as table ${sql.id('public', name)}`.execute(trx);
      await sql`create trigger sandbox_snapshot_changed after insert or update or delete or truncate on ${sql.id('public', name)}
        for each statement execute function ${sql.id(SCHEMA, 'mark_changed')}()`.execute(trx);
    }
  });
  (db as WithSnapshot)[SNAPSHOT] = true;
}

/** Puts back the data `takeSnapshot` copied; false when no snapshot was taken of `db`. */
export async function restoreSnapshot(db: Kysely<any>): Promise<boolean> {
  if (!(db as WithSnapshot)[SNAPSHOT]) return false;
  await db.transaction().execute((trx) => sql`select ${sql.id(SCHEMA, 'restore')}()`.execute(trx));
  return true;
}
