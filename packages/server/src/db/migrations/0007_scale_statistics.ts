import { type Kysely, sql } from 'kysely';

/*
 * Statistics that stay flat from thousands to millions of rows.
 * - Forum totals (topics by status and visibility, messages by state, per category; reports by
 *   status) are counters kept by row triggers in the same transaction as the write, so the forum
 *   statistics read a few dozen rows instead of aggregating every topic and message.
 * - Each customer's number of transports (`actors.transports_count`) is kept the same way: the
 *   top customers are an index read.
 * - Change counters (sequences, as in 0004) on forum, category and actor tables let the statistics
 *   caches notice any change that matters; statement triggers limited to the columns the
 *   statistics read, so a topic view or a profile edit does not invalidate them.
 * - Covering indexes for the 30-day windows of the forum statistics, the team scope of the top
 *   customers, the actor lists' name sorts, and (btree_gin) an agent's or a team's text search
 *   and point filters.
 * Frozen in time: never import application code here.
 */

const statements = [
  `create extension if not exists btree_gin`,
  // ---------------------------------------------------------------- forum counters
  `create table forum_category_counts (
    category_id integer primary key,
    topics integer not null default 0,
    topics_hidden integer not null default 0,
    topics_active integer not null default 0,
    topics_closed integer not null default 0,
    topics_archived integer not null default 0,
    messages integer not null default 0,
    messages_hidden integer not null default 0,
    messages_deleted integer not null default 0
  )`,
  `comment on table forum_category_counts is
    'Forum totals per topic category (0: topics without one), kept by triggers on forum_topics and forum_messages. messages: not deleted; messages_hidden: not deleted and hidden.'`,
  `create function forum_count(p_category integer, p_topics integer, p_hidden integer, p_active integer, p_closed integer,
      p_archived integer, p_messages integer, p_messages_hidden integer, p_messages_deleted integer) returns void language sql as $$
    insert into forum_category_counts as f
    values (coalesce(p_category, 0), p_topics, p_hidden, p_active, p_closed, p_archived, p_messages, p_messages_hidden, p_messages_deleted)
    on conflict (category_id) do update set
      topics = f.topics + excluded.topics,
      topics_hidden = f.topics_hidden + excluded.topics_hidden,
      topics_active = f.topics_active + excluded.topics_active,
      topics_closed = f.topics_closed + excluded.topics_closed,
      topics_archived = f.topics_archived + excluded.topics_archived,
      messages = f.messages + excluded.messages,
      messages_hidden = f.messages_hidden + excluded.messages_hidden,
      messages_deleted = f.messages_deleted + excluded.messages_deleted
  $$`,
  // A topic's own contribution (sign +1 or -1) and, when it moves or goes, that of its messages.
  `create function forum_count_topic(t forum_topics, sign integer, with_messages boolean) returns void language plpgsql as $$
    declare live integer := 0; hidden integer := 0; deleted integer := 0;
    begin
      if with_messages then
        select count(*) filter (where deleted_at is null), count(*) filter (where deleted_at is null and is_hidden),
               count(*) filter (where deleted_at is not null)
          into live, hidden, deleted from forum_messages where topic_id = t.id;
      end if;
      perform forum_count(t.category_id, sign, sign * t.is_hidden::int, sign * (t.status = 'ACTIVE')::int,
        sign * (t.status = 'CLOSED')::int, sign * (t.status = 'ARCHIVED')::int, sign * live, sign * hidden, sign * deleted);
    end $$`,
  `create function forum_topics_count() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        perform forum_count_topic(new, 1, false);
      elsif tg_op = 'DELETE' then
        -- Before the delete: its messages, removed by the cascade afterwards, are still there to count
        -- (their own trigger then finds no topic and counts nothing).
        perform forum_count_topic(old, -1, true);
        return old;
      else
        perform forum_count_topic(old, -1, old.category_id is distinct from new.category_id);
        perform forum_count_topic(new, 1, old.category_id is distinct from new.category_id);
      end if;
      return null;
    end $$`,
  `create trigger forum_topics_count after insert or update of status, is_hidden, category_id on forum_topics
    for each row execute function forum_topics_count()`,
  `create trigger forum_topics_uncount before delete on forum_topics for each row execute function forum_topics_count()`,
  `create function forum_count_message(m forum_messages, sign integer) returns void language plpgsql as $$
    declare category integer;
    begin
      select coalesce(category_id, 0) into category from forum_topics where id = m.topic_id;
      if found then
        perform forum_count(category, 0, 0, 0, 0, 0, sign * (m.deleted_at is null)::int,
          sign * (m.deleted_at is null and m.is_hidden)::int, sign * (m.deleted_at is not null)::int);
      end if;
    end $$`,
  `create function forum_messages_count() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then perform forum_count_message(old, -1); end if;
      if tg_op in ('UPDATE', 'INSERT') then perform forum_count_message(new, 1); end if;
      return null;
    end $$`,
  `create trigger forum_messages_count after insert or delete or update of deleted_at, is_hidden, topic_id on forum_messages
    for each row execute function forum_messages_count()`,
  `create table forum_report_counts (status text primary key, reports integer not null default 0)`,
  `create function forum_reports_count() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        update forum_report_counts set reports = reports - 1 where status = old.status;
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        insert into forum_report_counts as r values (new.status, 1)
        on conflict (status) do update set reports = r.reports + 1;
      end if;
      return null;
    end $$`,
  `create trigger forum_reports_count after insert or delete or update of status on forum_reports
    for each row execute function forum_reports_count()`,
  // ---------------------------------------------------------------- customers' transports
  `alter table actors add column transports_count integer not null default 0`,
  `create function actors_count_transports() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.customer_id is not null then
        update actors set transports_count = transports_count - 1 where id = old.customer_id;
      end if;
      if tg_op in ('UPDATE', 'INSERT') and new.customer_id is not null then
        update actors set transports_count = transports_count + 1 where id = new.customer_id;
      end if;
      return null;
    end $$`,
  `create trigger transports_count_customer after insert or delete on transports
    for each row execute function actors_count_transports()`,
  `create trigger transports_recount_customer after update of customer_id on transports
    for each row when (old.customer_id is distinct from new.customer_id) execute function actors_count_transports()`,
  // ---------------------------------------------------------------- indexes
  `create index actors_customers_by_transports_idx on actors (transports_count desc, id) where actor_role = 'CUSTOMER'`,
  `create index transports_created_by_customer_idx on transports (created_by, customer_id)`,
  `create index actors_role_last_name_id_idx on actors (actor_role, last_name, id)`,
  // The actor lists' search reads one trigram index over the four searched fields (four OR'ed
  // indexes made the planner prefer reading the whole table).
  `create index actors_search_trgm_idx on actors using gin ((first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '')) gin_trgm_ops)`,
  `create index actors_role_first_name_id_idx on actors (actor_role, first_name, id)`,
  `create index forum_messages_created_at_author_idx on forum_messages (created_at, author_id) include (deleted_at)`,
  `create index forum_topics_created_at_author_idx on forum_topics (created_at, author_id)`,
  // One GIN index over the creator and the four searched texts (btree_gin): an agent's or a team's
  // search and point filters read only the caller's matches, not every match of the term.
  `create index transports_created_by_text_trgm_idx on transports using gin (created_by, loading_number gin_trgm_ops,
    product_label gin_trgm_ops, loading_point gin_trgm_ops, unloading_point gin_trgm_ops)`,
];

/** Change counters behind the statistics caches: a table and the columns whose change matters. */
const COUNTED: Array<[string, string]> = [
  ['forum_topics', 'status, is_hidden, category_id, author_id, created_at'],
  ['forum_messages', 'deleted_at, is_hidden, topic_id, author_id, created_at'],
  ['forum_reports', 'status'],
  ['categories', 'name, scope'],
  ['actors', 'actor_role, is_active, organization_id, first_name, last_name, created_at'],
];

const backfill = [
  `insert into forum_category_counts (category_id, topics, topics_hidden, topics_active, topics_closed, topics_archived)
    select coalesce(category_id, 0), count(*), count(*) filter (where is_hidden), count(*) filter (where status = 'ACTIVE'),
      count(*) filter (where status = 'CLOSED'), count(*) filter (where status = 'ARCHIVED')
    from forum_topics group by 1`,
  `insert into forum_category_counts as f (category_id, messages, messages_hidden, messages_deleted)
    select coalesce(t.category_id, 0), count(*) filter (where m.deleted_at is null), count(*) filter (where m.deleted_at is null and m.is_hidden),
      count(*) filter (where m.deleted_at is not null)
    from forum_messages m join forum_topics t on t.id = m.topic_id group by 1
    on conflict (category_id) do update set messages = excluded.messages, messages_hidden = excluded.messages_hidden,
      messages_deleted = excluded.messages_deleted`,
  `insert into forum_report_counts (status, reports) select status, count(*) from forum_reports group by 1`,
  `update actors a set transports_count = c.n
    from (select customer_id, count(*)::int as n from transports where customer_id is not null group by 1) c where c.customer_id = a.id`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
  for (const [table, columns] of COUNTED) {
    await sql.raw(`create sequence ${table}_change_seq`).execute(db);
    await sql
      .raw(`create trigger ${table}_change_counter after insert or delete or truncate or update of ${columns} on ${table}
        for each statement execute function bump_change_counter()`)
      .execute(db);
  }
  for (const statement of backfill) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table] of COUNTED) {
    await sql.raw(`drop trigger if exists ${table}_change_counter on ${table}`).execute(db);
    await sql.raw(`drop sequence if exists ${table}_change_seq`).execute(db);
  }
  for (const statement of [
    'drop index if exists transports_created_by_text_trgm_idx',
    'drop index if exists forum_topics_created_at_author_idx',
    'drop index if exists forum_messages_created_at_author_idx',
    'drop index if exists actors_role_first_name_id_idx',
    'drop index if exists actors_role_last_name_id_idx',
    'drop index if exists actors_search_trgm_idx',
    'drop index if exists transports_created_by_customer_idx',
    'drop index if exists actors_customers_by_transports_idx',
    'drop trigger if exists transports_recount_customer on transports',
    'drop trigger if exists transports_count_customer on transports',
    'drop function if exists actors_count_transports()',
    'alter table actors drop column if exists transports_count',
    'drop trigger if exists forum_reports_count on forum_reports',
    'drop function if exists forum_reports_count()',
    'drop table if exists forum_report_counts',
    'drop trigger if exists forum_messages_count on forum_messages',
    'drop function if exists forum_messages_count()',
    'drop function if exists forum_count_message(forum_messages, integer)',
    'drop trigger if exists forum_topics_uncount on forum_topics',
    'drop trigger if exists forum_topics_count on forum_topics',
    'drop function if exists forum_topics_count()',
    'drop function if exists forum_count_topic(forum_topics, integer, boolean)',
    'drop function if exists forum_count(integer, integer, integer, integer, integer, integer, integer, integer, integer)',
    'drop table if exists forum_category_counts',
  ]) {
    await sql.raw(statement).execute(db);
  }
}
