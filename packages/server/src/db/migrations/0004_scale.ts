import { type Kysely, sql } from 'kysely';

/*
 * Indexes that keep every list and statistics query flat from thousands to millions of rows:
 * - trigram GIN indexes (pg_trgm, loaded by PGlite as well) behind every `ILIKE '%term%'` search;
 * - one btree per allowed sort key ending in `id`, so that keyset pages (`(key, id) < (…)`) and
 *   the first pages of every sort are an index range read, never a sort of the whole table.
 * - a change counter per table behind the statistics caches.
 * Frozen in time: never import application code here.
 */
const TRGM: Array<[string, string]> = [
  ['transports', 'loading_number'],
  ['transports', 'product_label'],
  ['transports', 'loading_point'],
  ['transports', 'unloading_point'],
  ['complaints', 'label'],
  ['complaints', 'description'],
  ['complaints', 'location'],
  ['forum_topics', 'title'],
  ['forum_topics', 'content'],
  ['announcements', 'title'],
  ['announcements', 'summary'],
  ['announcements', 'content'],
  ['actors', 'first_name'],
  ['actors', 'last_name'],
  ['actors', 'email'],
  ['actors', 'phone'],
];

const SORTS: Array<[string, string, string]> = [
  ['transports_created_at_id_idx', 'transports', 'created_at, id'],
  ['transports_status_id_idx', 'transports', 'status, id'],
  ['transports_status_created_at_id_idx', 'transports', 'status, created_at, id'],
  ['transports_created_by_created_at_id_idx', 'transports', 'created_by, created_at, id'],
  ['transports_loading_number_id_idx', 'transports', 'loading_number, id'],
  ['complaints_created_at_id_idx', 'complaints', 'created_at, id'],
  ['complaints_updated_at_id_idx', 'complaints', 'updated_at, id'],
  ['complaints_status_id_idx', 'complaints', 'status, id'],
  ['complaints_status_created_at_id_idx', 'complaints', 'status, created_at, id'],
  ['complaints_created_by_created_at_id_idx', 'complaints', 'created_by, created_at, id'],
  ['forum_topics_visible_last_message_idx', 'forum_topics', 'last_message_at, id) where (not is_hidden'],
  ['forum_topics_visible_popularity_idx', 'forum_topics', 'likes_count, views_count, id) where (not is_hidden'],
  ['forum_topics_visible_messages_idx', 'forum_topics', 'messages_count, id) where (not is_hidden'],
  ['forum_messages_topic_visible_last_idx', 'forum_messages', 'topic_id, created_at, id) where (deleted_at is null and not is_hidden'],
  ['announcements_published_at_id_idx', 'announcements', 'published_at, id'],
  ['announcements_created_at_id_idx', 'announcements', 'created_at, id'],
  ['actors_role_created_at_id_idx', 'actors', 'actor_role, created_at, id'],
  ['users_organization_id_id_idx', 'users', 'organization_id, id'],
];

// Statistics caches compare a change counter per table: a sequence (never a locked row, so writers
// never wait on each other) advanced once per writing statement by a statement-level trigger.
const COUNTED = ['transports', 'complaints'];

const trgmName = (table: string, column: string) => `${table}_${column}_trgm_idx`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  for (const [table, column] of TRGM) {
    await sql.raw(`create index ${trgmName(table, column)} on ${table} using gin (${column} gin_trgm_ops)`).execute(db);
  }
  for (const [name, table, columns] of SORTS) {
    await sql.raw(`create index ${name} on ${table} (${columns})`).execute(db);
  }
  await sql`create function bump_change_counter() returns trigger language plpgsql as $$
    begin perform nextval(tg_table_name || '_change_seq'); return null; end $$`.execute(db);
  for (const table of COUNTED) {
    await sql.raw(`create sequence ${table}_change_seq`).execute(db);
    await sql
      .raw(`create trigger ${table}_change_counter after insert or update or delete or truncate on ${table}
        for each statement execute function bump_change_counter()`)
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of COUNTED) {
    await sql.raw(`drop trigger if exists ${table}_change_counter on ${table}`).execute(db);
    await sql.raw(`drop sequence if exists ${table}_change_seq`).execute(db);
  }
  await sql`drop function if exists bump_change_counter()`.execute(db);
  for (const [name] of SORTS) await sql`drop index if exists ${sql.id(name)}`.execute(db);
  for (const [table, column] of TRGM) await sql`drop index if exists ${sql.id(trgmName(table, column))}`.execute(db);
}
