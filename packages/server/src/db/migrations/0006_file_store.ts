import { type Kysely, sql } from 'kysely';

/**
 * File bytes may live outside the database: a row holds either its `content` (bytea) or the
 * `storage_key` of a file in the file store, never both, never neither. Deleting a row that points
 * to a file (directly or by cascade) queues its key in `file_deletions`, in the same transaction:
 * the file store removes queued files once the deletion has committed.
 */
const tables = ['transport_documents', 'complaint_attachments'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table file_deletions (
    storage_key text primary key,
    queued_at timestamptz not null default now()
  )`.execute(db);
  await sql`create function queue_file_deletion() returns trigger language plpgsql as $$
    begin
      insert into file_deletions (storage_key) values (old.storage_key) on conflict do nothing;
      return old;
    end $$`.execute(db);
  for (const table of tables) {
    await sql`alter table ${sql.table(table)} alter column content drop not null`.execute(db);
    await sql`alter table ${sql.table(table)} add column storage_key text`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_content_or_key_check`)}
      check ((content is null) <> (storage_key is null))`.execute(db);
    await sql`create unique index ${sql.id(`${table}_storage_key_idx`)} on ${sql.table(table)} (storage_key)`.execute(db);
    await sql`create trigger ${sql.id(`${table}_queue_file_deletion`)} after delete on ${sql.table(table)}
      for each row when (old.storage_key is not null) execute function queue_file_deletion()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of tables) {
    await sql`drop trigger ${sql.id(`${table}_queue_file_deletion`)} on ${sql.table(table)}`.execute(db);
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_content_or_key_check`)}`.execute(db);
    await sql`alter table ${sql.table(table)} drop column storage_key`.execute(db);
    await sql`alter table ${sql.table(table)} alter column content set not null`.execute(db);
  }
  await sql`drop function queue_file_deletion()`.execute(db);
  await sql`drop table file_deletions`.execute(db);
}
