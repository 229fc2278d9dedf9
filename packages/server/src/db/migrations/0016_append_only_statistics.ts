import { type Kysely, sql } from 'kysely';

/*
 * Statistics without hot rows, and forum visibility in constant work per message.
 *
 * Until now every write moved roll-up and counter rows in place (0007, 0008, 0009): all writers of
 * one day, status, vehicle type, complaint type or forum category updated the same rows and waited
 * on each other's transactions. From here on writers only append:
 * - Each roll-up table R keeps its name as a view: `R_folded` (the former table, its totals moved
 *   over as they were, by renaming it in this migration's transaction) union all `R_delta`, rows that
 *   writers append and nobody updates. Readers sum over the view as they summed over the table: a
 *   key may appear in both parts.
 * - The usage counters kept on configuration rows (vehicle_types.transports_count,
 *   complaint_types.complaints_count, roles.users_count, tags.topics_count,
 *   tags.visible_topics_count, actors.transports_count) stay in their columns, folded; what was
 *   written since is appended to `counter_deltas` (counter name, row id, delta). Readers add the
 *   pending deltas of the rows they show.
 * - Transports, complaints and complaint history are counted by statement-level triggers with
 *   transition tables: one set-based insert per statement, grouped by the keys (a bulk
 *   `insert … select` of a million rows appends a few thousand rows, not millions of updates).
 *   Forum, actor, role and tag counters keep their row-level triggers, which now append.
 * - `fold_statistics()` moves the appended rows into the folded totals: each delta table is emptied
 *   by one `delete … returning` whose rows are added to the totals in the same statement, so a row is
 *   folded exactly once (a row committed after the statement's snapshot waits for the next round; two
 *   folds at once split the rows between them) and a reader's snapshot sees either the row or its
 *   folded sum, never both or neither. The server calls it on a period (STATISTICS_FOLD_INTERVAL_MS).
 *
 * Forum: `forum_messages.replies_count` counts a message's shown direct replies (visible ones and
 * placeholders, i.e. deleted or hidden messages with a visible descendant), as the moderation and
 * delete paths already maintained it; it is recomputed here exactly. A message is then shown when it
 * is visible or has a shown reply: one row's columns, whatever the size of its topic.
 *
 * The row-level functions of 0007-0009 that wrote in place stay defined (unused), so that `down`
 * puts their triggers back.
 * Frozen in time: never import application code here.
 */

const day = (column: string) => `((${column}) at time zone 'UTC')::date`;
const month = (column: string) => `date_trunc('month', (${column}) at time zone 'UTC')::date`;

/** Roll-up tables: [name, key columns, summed columns]. */
const ROLLUPS: Array<[string, string[], string[]]> = [
  ['transport_user_counts', ['created_by', 'status', 'validation_level', 'vehicle_type_id'], ['transports', 'product_value']],
  ['transport_day_counts', ['day', 'status', 'validation_level'], ['transports', 'product_value']],
  [
    'complaint_user_counts',
    ['created_by', 'status', 'complaint_type_id', 'country_id'],
    ['complaints', 'amount_paid', 'resolved', 'resolution_seconds'],
  ],
  ['complaint_day_counts', ['day', 'status'], ['complaints', 'amount_paid', 'resolved', 'resolution_seconds']],
  ['user_day_counts', ['user_id', 'day'], ['transports', 'complaints', 'resolutions']],
  ['user_month_counts', ['user_id', 'month'], ['transports', 'complaints', 'resolutions']],
  ['actor_counts', ['actor_role', 'organization_id', 'is_active'], ['actors']],
  [
    'forum_category_counts',
    ['category_id'],
    ['topics', 'topics_hidden', 'topics_active', 'topics_closed', 'topics_archived', 'messages', 'messages_hidden', 'messages_deleted'],
  ],
  ['forum_report_counts', ['status'], ['reports']],
];

/** Counters kept in a column of the counted row: [counter name in counter_deltas, table, column]. */
const COLUMN_COUNTERS: Array<[string, string, string]> = [
  ['vehicle_types.transports_count', 'vehicle_types', 'transports_count'],
  ['complaint_types.complaints_count', 'complaint_types', 'complaints_count'],
  ['roles.users_count', 'roles', 'users_count'],
  ['tags.topics_count', 'tags', 'topics_count'],
  ['tags.visible_topics_count', 'tags', 'visible_topics_count'],
  ['actors.transports_count', 'actors', 'transports_count'],
];

function rollUpStatements([name, keys, values]: [string, string[], string[]]): string[] {
  const columns = [...keys, ...values].join(', ');
  return [
    `alter table ${name} rename to ${name}_folded`,
    `alter index ${name}_pkey rename to ${name}_folded_pkey`,
    `create table ${name}_delta (like ${name}_folded including defaults)`,
    `comment on table ${name}_delta is 'Rows appended by the writers of ${name} (never updated); fold_statistics() adds them to ${name}_folded.'`,
    `create view ${name} as select ${columns} from ${name}_folded union all select ${columns} from ${name}_delta`,
    `comment on view ${name} is 'Folded totals and the rows appended since: sum by key to read a figure.'`,
  ];
}

/** One statement that folds a roll-up's appended rows into its totals. */
function foldRollUp([name, keys, values]: [string, string[], string[]]): string {
  const sums = values.map((v) => `sum(${v})`).join(', ');
  const add = values.map((v) => `${v} = x.${v} + excluded.${v}`).join(', ');
  return `with d as (delete from ${name}_delta returning *)
    insert into ${name}_folded as x select ${keys.join(', ')}, ${sums} from d group by ${keys.join(', ')}
    on conflict (${keys.join(', ')}) do update set ${add}`;
}

/** A `having` keeping only groups whose net change is not zero. */
const changed = (sums: string[]) => `having ${sums.map((s) => `${s} <> 0`).join(' or ')}`;

/**
 * The appends of a transports statement: `source` yields `sign` (+1 new, -1 old) and the row's
 * columns. One statement, the transition rows read once (a materialized CTE).
 */
const transportDeltas = (source: string) => `
  with r as materialized (
    select sign, created_by, status, validation_level, vehicle_type_id, customer_id, created_at,
      sign * coalesce(total_product_value::numeric, 0) as value
    from (${source}) s
  ),
  a as (insert into transport_user_counts_delta
    select created_by, status, validation_level, vehicle_type_id, sum(sign), sum(value) from r
    group by 1, 2, 3, 4 ${changed(['sum(sign)', 'sum(value)'])}),
  b as (insert into transport_day_counts_delta
    select ${day('created_at')}, status, validation_level, sum(sign), sum(value) from r
    group by 1, 2, 3 ${changed(['sum(sign)', 'sum(value)'])}),
  c as (insert into user_day_counts_delta (user_id, day, transports)
    select created_by, ${day('created_at')}, sum(sign) from r group by 1, 2 ${changed(['sum(sign)'])}),
  d as (insert into user_month_counts_delta (user_id, month, transports)
    select created_by, ${month('created_at')}, sum(sign) from r group by 1, 2 ${changed(['sum(sign)'])})
  insert into counter_deltas (counter, id, delta)
    select 'vehicle_types.transports_count', vehicle_type_id, sum(sign) from r group by 2 ${changed(['sum(sign)'])}
    union all
    select 'actors.transports_count', customer_id, sum(sign) from r where customer_id is not null group by 2 ${changed(['sum(sign)'])}`;

const complaintDeltas = (source: string) => `
  with r as materialized (
    select sign, created_by, status, coalesce(complaint_type_id, 0) as complaint_type_id, coalesce(country_id, 0) as country_id,
      created_at, sign * coalesce(amount_paid::numeric, 0) as amount, sign * (resolved_at is not null)::int as resolved,
      sign * coalesce(extract(epoch from (resolved_at - created_at)), 0) as seconds
    from (${source}) s
  ),
  a as (insert into complaint_user_counts_delta
    select created_by, status, complaint_type_id, country_id, sum(sign), sum(amount), sum(resolved), sum(seconds) from r
    group by 1, 2, 3, 4 ${changed(['sum(sign)', 'sum(amount)', 'sum(resolved)', 'sum(seconds)'])}),
  b as (insert into complaint_day_counts_delta
    select ${day('created_at')}, status, sum(sign), sum(amount), sum(resolved), sum(seconds) from r
    group by 1, 2 ${changed(['sum(sign)', 'sum(amount)', 'sum(resolved)', 'sum(seconds)'])}),
  c as (insert into user_day_counts_delta (user_id, day, complaints)
    select created_by, ${day('created_at')}, sum(sign) from r group by 1, 2 ${changed(['sum(sign)'])}),
  d as (insert into user_month_counts_delta (user_id, month, complaints)
    select created_by, ${month('created_at')}, sum(sign) from r group by 1, 2 ${changed(['sum(sign)'])})
  insert into counter_deltas (counter, id, delta)
    select 'complaint_types.complaints_count', complaint_type_id, sum(sign) from r where complaint_type_id <> 0
    group by 2 ${changed(['sum(sign)'])}`;

const resolutionDeltas = (source: string) => `
  with r as materialized (
    select sign, created_by, created_at from (${source}) s where status = 'RESOLVED' and created_by is not null
  ),
  c as (insert into user_day_counts_delta (user_id, day, resolutions)
    select created_by, ${day('created_at')}, sum(sign) from r group by 1, 2 ${changed(['sum(sign)'])})
  insert into user_month_counts_delta (user_id, month, resolutions)
    select created_by, ${month('created_at')}, sum(sign) from r group by 1, 2 ${changed(['sum(sign)'])}`;

/** Statement-level counting of a table: a function taking each statement's transition rows, and its three triggers. */
function statementCounting(table: string, fn: string, deltas: (source: string) => string): string[] {
  return [
    `create function ${fn}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${deltas('select 1 as sign, * from new_rows')};
        elsif tg_op = 'DELETE' then ${deltas('select -1 as sign, * from old_rows')};
        else ${deltas('select 1 as sign, * from new_rows union all select -1 as sign, * from old_rows')};
        end if;
        return null;
      end $$`,
    `create trigger ${fn}_insert after insert on ${table} referencing new table as new_rows
      for each statement execute function ${fn}()`,
    `create trigger ${fn}_update after update on ${table} referencing old table as old_rows new table as new_rows
      for each statement execute function ${fn}()`,
    `create trigger ${fn}_delete after delete on ${table} referencing old table as old_rows
      for each statement execute function ${fn}()`,
  ];
}

/** Row-level triggers of 0007-0009 that wrote in place and are replaced: [trigger, table, its definition for `down`]. */
const REPLACED_TRIGGERS: Array<[string, string, string]> = [
  ['transports_roll_up', 'transports', `after insert or delete on transports for each row execute function transports_roll_up()`],
  [
    'transports_roll_up_change',
    'transports',
    `after update of created_by, status, validation_level, vehicle_type_id, total_product_value, created_at on transports for each row
      when ((old.created_by, old.status, old.validation_level, old.vehicle_type_id, old.total_product_value, old.created_at)
        is distinct from (new.created_by, new.status, new.validation_level, new.vehicle_type_id, new.total_product_value, new.created_at))
      execute function transports_roll_up()`,
  ],
  [
    'transports_count_customer',
    'transports',
    `after insert or delete on transports for each row execute function actors_count_transports()`,
  ],
  [
    'transports_recount_customer',
    'transports',
    `after update of customer_id on transports for each row when (old.customer_id is distinct from new.customer_id)
      execute function actors_count_transports()`,
  ],
  [
    'transports_count_vehicle_type_id',
    'transports',
    `after insert or delete on transports for each row execute function vehicle_types_count_transports()`,
  ],
  [
    'transports_recount_vehicle_type_id',
    'transports',
    `after update of vehicle_type_id on transports for each row when (old.vehicle_type_id is distinct from new.vehicle_type_id)
      execute function vehicle_types_count_transports()`,
  ],
  ['complaints_roll_up', 'complaints', `after insert or delete on complaints for each row execute function complaints_roll_up()`],
  [
    'complaints_roll_up_change',
    'complaints',
    `after update of created_by, status, complaint_type_id, country_id, amount_paid, resolved_at, created_at on complaints for each row
      when ((old.created_by, old.status, old.complaint_type_id, old.country_id, old.amount_paid, old.resolved_at, old.created_at)
        is distinct from (new.created_by, new.status, new.complaint_type_id, new.country_id, new.amount_paid, new.resolved_at, new.created_at))
      execute function complaints_roll_up()`,
  ],
  [
    'complaints_count_complaint_type_id',
    'complaints',
    `after insert or delete on complaints for each row execute function complaint_types_count_complaints()`,
  ],
  [
    'complaints_recount_complaint_type_id',
    'complaints',
    `after update of complaint_type_id on complaints for each row when (old.complaint_type_id is distinct from new.complaint_type_id)
      execute function complaint_types_count_complaints()`,
  ],
  [
    'complaint_history_roll_up',
    'complaint_status_history',
    `after insert or delete or update of status, created_by, created_at on complaint_status_history for each row
      execute function complaint_history_roll_up()`,
  ],
  ['actors_roll_up', 'actors', `after insert or delete on actors for each row execute function actors_roll_up()`],
  [
    'actors_roll_up_change',
    'actors',
    `after update of actor_role, organization_id, is_active on actors for each row
      when ((old.actor_role, old.organization_id, old.is_active) is distinct from (new.actor_role, new.organization_id, new.is_active))
      execute function actors_roll_up()`,
  ],
  [
    'forum_reports_count',
    'forum_reports',
    `after insert or delete or update of status on forum_reports for each row execute function forum_reports_count()`,
  ],
  ['users_count_role_id', 'users', `after insert or delete on users for each row execute function roles_count_users()`],
  [
    'users_recount_role_id',
    'users',
    `after update of role_id on users for each row when (old.role_id is distinct from new.role_id) execute function roles_count_users()`,
  ],
  [
    'forum_topic_tags_count_tag_id',
    'forum_topic_tags',
    `after insert or delete on forum_topic_tags for each row execute function tags_count_forum_topic_tags()`,
  ],
  [
    'forum_topic_tags_recount_tag_id',
    'forum_topic_tags',
    `after update of tag_id on forum_topic_tags for each row when (old.tag_id is distinct from new.tag_id)
      execute function tags_count_forum_topic_tags()`,
  ],
  [
    'forum_topic_tags_count_visible',
    'forum_topic_tags',
    `after insert or delete or update on forum_topic_tags for each row execute function tags_count_visible_topic()`,
  ],
  [
    'forum_topics_count_visible_tags',
    'forum_topics',
    `after update of is_hidden on forum_topics for each row when (old.is_hidden is distinct from new.is_hidden)
      execute function forum_topics_count_visible_tags()`,
  ],
  [
    'forum_topics_uncount_visible_tags',
    'forum_topics',
    `before delete on forum_topics for each row execute function forum_topics_count_visible_tags()`,
  ],
];

/** The row-level triggers that take their place (same events and conditions), appending instead. */
const APPENDING_TRIGGERS: string[] = [
  `create function actor_counts_append() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        insert into actor_counts_delta values (old.actor_role, coalesce(old.organization_id, 0), old.is_active, -1);
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        insert into actor_counts_delta values (new.actor_role, coalesce(new.organization_id, 0), new.is_active, 1);
      end if;
      return null;
    end $$`,
  `create trigger actor_counts_append after insert or delete on actors for each row execute function actor_counts_append()`,
  `create trigger actor_counts_append_change after update of actor_role, organization_id, is_active on actors for each row
    when ((old.actor_role, old.organization_id, old.is_active) is distinct from (new.actor_role, new.organization_id, new.is_active))
    execute function actor_counts_append()`,
  `create function forum_report_counts_append() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then insert into forum_report_counts_delta values (old.status, -1); end if;
      if tg_op in ('UPDATE', 'INSERT') then insert into forum_report_counts_delta values (new.status, 1); end if;
      return null;
    end $$`,
  `create trigger forum_report_counts_append after insert or delete or update of status on forum_reports
    for each row execute function forum_report_counts_append()`,
  // A foreign key's counter on the referenced row: [counter, foreign key] in the function's arguments.
  `create function counter_append() returns trigger language plpgsql as $$
    declare old_id integer; new_id integer;
    begin
      if tg_op in ('UPDATE', 'DELETE') then old_id := (to_jsonb(old) ->> tg_argv[1])::integer; end if;
      if tg_op in ('UPDATE', 'INSERT') then new_id := (to_jsonb(new) ->> tg_argv[1])::integer; end if;
      if old_id is not null then insert into counter_deltas values (tg_argv[0], old_id, -1); end if;
      if new_id is not null then insert into counter_deltas values (tg_argv[0], new_id, 1); end if;
      return null;
    end $$`,
  `create trigger users_count_role_id after insert or delete on users for each row execute function counter_append('roles.users_count', 'role_id')`,
  `create trigger users_recount_role_id after update of role_id on users for each row when (old.role_id is distinct from new.role_id)
    execute function counter_append('roles.users_count', 'role_id')`,
  `create trigger forum_topic_tags_count_tag_id after insert or delete on forum_topic_tags for each row
    execute function counter_append('tags.topics_count', 'tag_id')`,
  `create trigger forum_topic_tags_recount_tag_id after update of tag_id on forum_topic_tags for each row
    when (old.tag_id is distinct from new.tag_id) execute function counter_append('tags.topics_count', 'tag_id')`,
  `create function tags_append_visible_topic() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        insert into counter_deltas select 'tags.visible_topics_count', old.tag_id, -1
        where exists (select 1 from forum_topics t where t.id = old.topic_id and not t.is_hidden);
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        insert into counter_deltas select 'tags.visible_topics_count', new.tag_id, 1
        where exists (select 1 from forum_topics t where t.id = new.topic_id and not t.is_hidden);
      end if;
      return null;
    end $$`,
  `create trigger forum_topic_tags_count_visible after insert or delete or update on forum_topic_tags
    for each row execute function tags_append_visible_topic()`,
  // A topic hidden or shown moves its tags; a deleted visible topic takes its tags away before the
  // cascade removes them (their own trigger then finds no topic and appends nothing).
  `create function forum_topics_append_visible_tags() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        if not old.is_hidden then
          insert into counter_deltas select 'tags.visible_topics_count', tag_id, -1 from forum_topic_tags where topic_id = old.id;
        end if;
        return old;
      end if;
      insert into counter_deltas select 'tags.visible_topics_count', tag_id, case when new.is_hidden then -1 else 1 end
      from forum_topic_tags where topic_id = new.id;
      return null;
    end $$`,
  `create trigger forum_topics_count_visible_tags after update of is_hidden on forum_topics
    for each row when (old.is_hidden is distinct from new.is_hidden) execute function forum_topics_append_visible_tags()`,
  `create trigger forum_topics_uncount_visible_tags before delete on forum_topics
    for each row execute function forum_topics_append_visible_tags()`,
];

/** forum_count (0007) is the one place the forum triggers wrote category totals: it now appends. */
const forumCountAppending = `create or replace function forum_count(p_category integer, p_topics integer, p_hidden integer, p_active integer,
    p_closed integer, p_archived integer, p_messages integer, p_messages_hidden integer, p_messages_deleted integer) returns void language sql as $$
  insert into forum_category_counts_delta
  values (coalesce(p_category, 0), p_topics, p_hidden, p_active, p_closed, p_archived, p_messages, p_messages_hidden, p_messages_deleted)
$$`;

const forumCountInPlace = `create or replace function forum_count(p_category integer, p_topics integer, p_hidden integer, p_active integer,
    p_closed integer, p_archived integer, p_messages integer, p_messages_hidden integer, p_messages_deleted integer) returns void language sql as $$
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
$$`;

/** One update per table of column counters (a row updated twice by one statement keeps only one change). */
function foldColumns(): string {
  const tables = [...new Set(COLUMN_COUNTERS.map(([, table]) => table))];
  const updates = tables.map((table, i) => {
    const mine = COLUMN_COUNTERS.filter(([, t]) => t === table);
    const sums = mine.map(([counter], j) => `coalesce(sum(delta) filter (where counter = '${counter}'), 0) as d${j}`).join(', ');
    const set = mine.map(([, , column], j) => `${column} = t.${column} + c.d${j}`).join(', ');
    const names = mine.map(([counter]) => `'${counter}'`).join(', ');
    return `u${i} as (update ${table} t set ${set}
      from (select id, ${sums} from s where counter in (${names}) group by id) c where t.id = c.id)`;
  });
  return `with d as (delete from counter_deltas returning counter, id, delta),
    s as (select counter, id, sum(delta) as delta from d group by 1, 2),
    ${updates.join(',\n    ')}
    select count(*) into n from s`;
}

/** Folds everything appended so far; one fold at a time (another caller meanwhile returns 0 at once). */
const foldFunction = `create function fold_statistics() returns bigint language plpgsql as $$
  declare folded bigint := 0; n bigint;
  begin
    if not pg_try_advisory_xact_lock(hashtext('fold_statistics')) then return 0; end if;
    ${ROLLUPS.map((r) => `${foldRollUp(r)};\n    get diagnostics n = row_count; folded := folded + n;`).join('\n    ')}
    ${foldColumns()};
    return folded + n;
  end $$`;

/**
 * Shown direct replies of every message, recounted: a message is shown when it is visible (not
 * deleted, not hidden) or has a visible descendant.
 */
const recountShownReplies = `with recursive below(id) as (
    select parent_id from forum_messages where parent_id is not null and deleted_at is null and not is_hidden
    union
    select m.parent_id from forum_messages m join below b on b.id = m.id where m.parent_id is not null
  ),
  shown as (
    select id, parent_id from forum_messages where deleted_at is null and not is_hidden
    union
    select m.id, m.parent_id from forum_messages m join below b on b.id = m.id
  ),
  counted as (select parent_id as id, count(*)::int as n from shown where parent_id is not null group by 1)
  update forum_messages m set replies_count = coalesce(c.n, 0)
  from forum_messages x left join counted c on c.id = x.id
  where x.id = m.id and m.replies_count is distinct from coalesce(c.n, 0)`;

export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    ...ROLLUPS.flatMap(rollUpStatements),
    `create table counter_deltas (counter text not null, id integer not null, delta integer not null)`,
    `comment on table counter_deltas is 'Changes of the usage counters kept in a column of the counted row (counter: table.column), appended by triggers; fold_statistics() adds them to the column.'`,
    `create index counter_deltas_counter_id_idx on counter_deltas (counter, id) include (delta)`,
    ...REPLACED_TRIGGERS.map(([trigger, table]) => `drop trigger ${trigger} on ${table}`),
    ...statementCounting('transports', 'transport_statistics', transportDeltas),
    ...statementCounting('complaints', 'complaint_statistics', complaintDeltas),
    ...statementCounting('complaint_status_history', 'resolution_statistics', resolutionDeltas),
    ...APPENDING_TRIGGERS,
    forumCountAppending,
    foldFunction,
    recountShownReplies,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`select fold_statistics()`.execute(db);
  const statements = [
    'drop function fold_statistics()',
    'drop trigger forum_topics_uncount_visible_tags on forum_topics',
    'drop trigger forum_topics_count_visible_tags on forum_topics',
    'drop function forum_topics_append_visible_tags()',
    'drop trigger forum_topic_tags_count_visible on forum_topic_tags',
    'drop function tags_append_visible_topic()',
    'drop trigger forum_topic_tags_recount_tag_id on forum_topic_tags',
    'drop trigger forum_topic_tags_count_tag_id on forum_topic_tags',
    'drop trigger users_recount_role_id on users',
    'drop trigger users_count_role_id on users',
    'drop function counter_append()',
    'drop trigger forum_report_counts_append on forum_reports',
    'drop function forum_report_counts_append()',
    'drop trigger actor_counts_append_change on actors',
    'drop trigger actor_counts_append on actors',
    'drop function actor_counts_append()',
    ...['transport_statistics', 'complaint_statistics', 'resolution_statistics'].flatMap((fn) => {
      const table = { transport_statistics: 'transports', complaint_statistics: 'complaints' }[fn] ?? 'complaint_status_history';
      return [...['insert', 'update', 'delete'].map((e) => `drop trigger ${fn}_${e} on ${table}`), `drop function ${fn}()`];
    }),
    ...REPLACED_TRIGGERS.map(([trigger, , definition]) => `create trigger ${trigger} ${definition}`),
    'drop table counter_deltas',
    ...ROLLUPS.flatMap(([name]) => [
      `drop view ${name}`,
      `drop table ${name}_delta`,
      `alter table ${name}_folded rename to ${name}`,
      `alter index ${name}_folded_pkey rename to ${name}_pkey`,
    ]),
    // A SQL function is checked against the tables it writes: after they are back.
    forumCountInPlace,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
