import { type Kysely, sql } from 'kysely';

/*
 * Statistics that stay flat on a cache miss from thousands to millions of rows: the figures of the
 * transport, complaint and report statistics are sums over small tables kept by row triggers in the
 * same transaction as every write (the pattern of forum_category_counts in 0007):
 * - transport_user_counts, complaint_user_counts: per creator and the dimensions the statistics
 *   group by (status, validation level, vehicle type; status, complaint type, country), with the
 *   sums they show. Any scope (everything, a team, one user) is a sum over its creators' rows.
 * - transport_day_counts, complaint_day_counts: everything, per UTC day of creation: a period of the
 *   global report is a sum over its whole days (its partial first and last days are read from the
 *   rows, by their creation-date index).
 * - user_day_counts, user_month_counts: per user and UTC day (month), the transports and complaints
 *   they created and the RESOLVED history entries they wrote: the report's per-user figures (whole
 *   months, then whole days, then the rows of the partial days) and a team's per-day series.
 * Sums of money are numeric (the double precision values converted, as PostgreSQL does, to 15
 * significant digits), so adding and removing rows never drifts; resolution durations in seconds.
 * - actor_counts: actors per role, organization (0: none) and active flag (the actor statistics).
 * - tags.visible_topics_count: visible forum topics carrying the tag (the forum's tag list).
 * - A covering index of transports by creator and creation date (a team's report over a period).
 * - An index of the complaint attachments never linked to a complaint, by upload time (the sweep of
 *   old pending uploads).
 * Frozen in time: never import application code here.
 */

const day = (column: string) => `((${column}) at time zone 'UTC')::date`;
const month = (column: string) => `date_trunc('month', (${column}) at time zone 'UTC')::date`;

const statements = [
  // ---------------------------------------------------------------- tables
  `create table transport_user_counts (
    created_by integer not null,
    status text not null,
    validation_level smallint not null,
    vehicle_type_id integer not null,
    transports integer not null default 0,
    product_value numeric not null default 0,
    primary key (created_by, status, validation_level, vehicle_type_id)
  )`,
  `create table transport_day_counts (
    day date not null,
    status text not null,
    validation_level smallint not null,
    transports integer not null default 0,
    product_value numeric not null default 0,
    primary key (day, status, validation_level)
  )`,
  // complaint_type_id and country_id: 0 for none.
  `create table complaint_user_counts (
    created_by integer not null,
    status text not null,
    complaint_type_id integer not null,
    country_id integer not null,
    complaints integer not null default 0,
    amount_paid numeric not null default 0,
    resolved integer not null default 0,
    resolution_seconds numeric not null default 0,
    primary key (created_by, status, complaint_type_id, country_id)
  )`,
  `create table complaint_day_counts (
    day date not null,
    status text not null,
    complaints integer not null default 0,
    amount_paid numeric not null default 0,
    resolved integer not null default 0,
    resolution_seconds numeric not null default 0,
    primary key (day, status)
  )`,
  `create table user_day_counts (
    user_id integer not null,
    day date not null,
    transports integer not null default 0,
    complaints integer not null default 0,
    resolutions integer not null default 0,
    primary key (user_id, day)
  )`,
  `create table user_month_counts (
    user_id integer not null,
    month date not null,
    transports integer not null default 0,
    complaints integer not null default 0,
    resolutions integer not null default 0,
    primary key (user_id, month)
  )`,
  // Everyone's activity over a range of days (the global report's days outside whole months).
  `create index user_day_counts_day_idx on user_day_counts (day) include (user_id, transports, complaints, resolutions)`,
  `comment on table user_month_counts is 'user_day_counts per UTC month (its first day); kept by the same triggers.'`,
  `comment on table transport_user_counts is 'Transports per creator, status, validation level and vehicle type, with the sum of total_product_value; kept by triggers on transports.'`,
  `comment on table transport_day_counts is 'Transports per UTC day of creation, status and validation level, with the sum of total_product_value; kept by triggers on transports.'`,
  `comment on table complaint_user_counts is 'Complaints per creator, status, complaint type and country (0: none), with amounts paid and resolution times; kept by triggers on complaints.'`,
  `comment on table complaint_day_counts is 'Complaints per UTC day of creation and status, with amounts paid and resolution times; kept by triggers on complaints.'`,
  `comment on table user_day_counts is 'Per user and UTC day: transports and complaints created, RESOLVED history entries written; kept by triggers.'`,
  // ---------------------------------------------------------------- transports
  // A row's contribution (sign +1 or -1); the per-user rows only when `activity` (an update that
  // keeps the creator and the day leaves them as they are).
  `create function transport_count(t transports, sign integer, activity boolean) returns void language plpgsql as $$
    declare value numeric := sign * coalesce(t.total_product_value::numeric, 0);
    begin
      insert into transport_user_counts as x values (t.created_by, t.status, t.validation_level, t.vehicle_type_id, sign, value)
      on conflict (created_by, status, validation_level, vehicle_type_id) do update
        set transports = x.transports + excluded.transports, product_value = x.product_value + excluded.product_value;
      insert into transport_day_counts as x values (${day('t.created_at')}, t.status, t.validation_level, sign, value)
      on conflict (day, status, validation_level) do update
        set transports = x.transports + excluded.transports, product_value = x.product_value + excluded.product_value;
      if activity then
        insert into user_day_counts as x (user_id, day, transports) values (t.created_by, ${day('t.created_at')}, sign)
        on conflict (user_id, day) do update set transports = x.transports + excluded.transports;
        insert into user_month_counts as x (user_id, month, transports) values (t.created_by, ${month('t.created_at')}, sign)
        on conflict (user_id, month) do update set transports = x.transports + excluded.transports;
      end if;
    end $$`,
  // An update takes its two sides in the order of their status (then level, creator, day): two
  // transactions moving rows in opposite directions lock the counter rows in the same order.
  `create function transports_roll_up() returns trigger language plpgsql as $$
    declare activity boolean;
    begin
      if tg_op = 'INSERT' then perform transport_count(new, 1, true);
      elsif tg_op = 'DELETE' then perform transport_count(old, -1, true);
      else
        activity := old.created_by is distinct from new.created_by or ${day('old.created_at')} <> ${day('new.created_at')};
        if (old.status, old.validation_level, old.created_by, old.created_at) <= (new.status, new.validation_level, new.created_by, new.created_at) then
          perform transport_count(old, -1, activity);
          perform transport_count(new, 1, activity);
        else
          perform transport_count(new, 1, activity);
          perform transport_count(old, -1, activity);
        end if;
      end if;
      return null;
    end $$`,
  `create trigger transports_roll_up after insert or delete on transports for each row execute function transports_roll_up()`,
  `create trigger transports_roll_up_change after update of created_by, status, validation_level, vehicle_type_id, total_product_value, created_at
    on transports for each row
    when ((old.created_by, old.status, old.validation_level, old.vehicle_type_id, old.total_product_value, old.created_at)
      is distinct from (new.created_by, new.status, new.validation_level, new.vehicle_type_id, new.total_product_value, new.created_at))
    execute function transports_roll_up()`,
  // ---------------------------------------------------------------- complaints
  `create function complaint_count(c complaints, sign integer, activity boolean) returns void language plpgsql as $$
    declare
      amount numeric := sign * coalesce(c.amount_paid::numeric, 0);
      resolved integer := sign * (c.resolved_at is not null)::int;
      seconds numeric := sign * coalesce(extract(epoch from (c.resolved_at - c.created_at)), 0);
    begin
      insert into complaint_user_counts as x
      values (c.created_by, c.status, coalesce(c.complaint_type_id, 0), coalesce(c.country_id, 0), sign, amount, resolved, seconds)
      on conflict (created_by, status, complaint_type_id, country_id) do update
        set complaints = x.complaints + excluded.complaints, amount_paid = x.amount_paid + excluded.amount_paid,
          resolved = x.resolved + excluded.resolved, resolution_seconds = x.resolution_seconds + excluded.resolution_seconds;
      insert into complaint_day_counts as x values (${day('c.created_at')}, c.status, sign, amount, resolved, seconds)
      on conflict (day, status) do update
        set complaints = x.complaints + excluded.complaints, amount_paid = x.amount_paid + excluded.amount_paid,
          resolved = x.resolved + excluded.resolved, resolution_seconds = x.resolution_seconds + excluded.resolution_seconds;
      if activity then
        insert into user_day_counts as x (user_id, day, complaints) values (c.created_by, ${day('c.created_at')}, sign)
        on conflict (user_id, day) do update set complaints = x.complaints + excluded.complaints;
        insert into user_month_counts as x (user_id, month, complaints) values (c.created_by, ${month('c.created_at')}, sign)
        on conflict (user_id, month) do update set complaints = x.complaints + excluded.complaints;
      end if;
    end $$`,
  `create function complaints_roll_up() returns trigger language plpgsql as $$
    declare activity boolean;
    begin
      if tg_op = 'INSERT' then perform complaint_count(new, 1, true);
      elsif tg_op = 'DELETE' then perform complaint_count(old, -1, true);
      else
        activity := old.created_by is distinct from new.created_by or ${day('old.created_at')} <> ${day('new.created_at')};
        if (old.status, old.created_by, old.created_at) <= (new.status, new.created_by, new.created_at) then
          perform complaint_count(old, -1, activity);
          perform complaint_count(new, 1, activity);
        else
          perform complaint_count(new, 1, activity);
          perform complaint_count(old, -1, activity);
        end if;
      end if;
      return null;
    end $$`,
  `create trigger complaints_roll_up after insert or delete on complaints for each row execute function complaints_roll_up()`,
  `create trigger complaints_roll_up_change after update of created_by, status, complaint_type_id, country_id, amount_paid, resolved_at, created_at
    on complaints for each row
    when ((old.created_by, old.status, old.complaint_type_id, old.country_id, old.amount_paid, old.resolved_at, old.created_at)
      is distinct from (new.created_by, new.status, new.complaint_type_id, new.country_id, new.amount_paid, new.resolved_at, new.created_at))
    execute function complaints_roll_up()`,
  // ---------------------------------------------------------------- resolutions
  `create function complaint_history_roll_up() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.status = 'RESOLVED' and old.created_by is not null then
        update user_day_counts set resolutions = resolutions - 1 where user_id = old.created_by and day = ${day('old.created_at')};
        update user_month_counts set resolutions = resolutions - 1 where user_id = old.created_by and month = ${month('old.created_at')};
      end if;
      if tg_op in ('UPDATE', 'INSERT') and new.status = 'RESOLVED' and new.created_by is not null then
        insert into user_day_counts as x (user_id, day, resolutions) values (new.created_by, ${day('new.created_at')}, 1)
        on conflict (user_id, day) do update set resolutions = x.resolutions + 1;
        insert into user_month_counts as x (user_id, month, resolutions) values (new.created_by, ${month('new.created_at')}, 1)
        on conflict (user_id, month) do update set resolutions = x.resolutions + 1;
      end if;
      return null;
    end $$`,
  `create trigger complaint_history_roll_up after insert or delete or update of status, created_by, created_at
    on complaint_status_history for each row execute function complaint_history_roll_up()`,
  // A team's report over a period aggregates the team's transports: an index-only range per member.
  `create index transports_created_by_created_at_cover_idx on transports (created_by, created_at)
    include (status, validation_level, total_product_value)`,
  // The partial first and last days of a period are read from the rows.
  `create index complaint_status_history_resolved_at_idx on complaint_status_history (created_at) include (created_by)
    where status = 'RESOLVED'`,
  `create index complaint_attachments_unlinked_idx on complaint_attachments (created_at) where complaint_id is null`,
  // ---------------------------------------------------------------- actors
  `create table actor_counts (
    actor_role text not null,
    organization_id integer not null,
    is_active boolean not null,
    actors integer not null default 0,
    primary key (actor_role, organization_id, is_active)
  )`,
  `comment on table actor_counts is 'Actors per role, organization (0: none) and active flag; kept by triggers on actors.'`,
  `create function actors_roll_up() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        update actor_counts set actors = actors - 1
        where actor_role = old.actor_role and organization_id = coalesce(old.organization_id, 0) and is_active = old.is_active;
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        insert into actor_counts as x values (new.actor_role, coalesce(new.organization_id, 0), new.is_active, 1)
        on conflict (actor_role, organization_id, is_active) do update set actors = x.actors + 1;
      end if;
      return null;
    end $$`,
  `create trigger actors_roll_up after insert or delete on actors for each row execute function actors_roll_up()`,
  `create trigger actors_roll_up_change after update of actor_role, organization_id, is_active on actors for each row
    when ((old.actor_role, old.organization_id, old.is_active) is distinct from (new.actor_role, new.organization_id, new.is_active))
    execute function actors_roll_up()`,
  // ---------------------------------------------------------------- visible forum topics per tag
  `alter table tags add column visible_topics_count integer not null default 0`,
  `comment on column tags.visible_topics_count is 'Forum topics carrying the tag that are not hidden; kept by triggers on forum_topic_tags and forum_topics.'`,
  `create function tags_count_visible_topic() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        update tags set visible_topics_count = visible_topics_count - 1
        where id = old.tag_id and exists (select 1 from forum_topics t where t.id = old.topic_id and not t.is_hidden);
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        update tags set visible_topics_count = visible_topics_count + 1
        where id = new.tag_id and exists (select 1 from forum_topics t where t.id = new.topic_id and not t.is_hidden);
      end if;
      return null;
    end $$`,
  `create trigger forum_topic_tags_count_visible after insert or delete or update on forum_topic_tags
    for each row execute function tags_count_visible_topic()`,
  // A topic hidden or shown moves its tags; a deleted visible topic takes its tags away before the
  // cascade removes them (their own trigger then finds no topic and counts nothing).
  `create function forum_topics_count_visible_tags() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        if not old.is_hidden then
          update tags set visible_topics_count = visible_topics_count - 1
          where id in (select tag_id from forum_topic_tags where topic_id = old.id);
        end if;
        return old;
      end if;
      update tags set visible_topics_count = visible_topics_count + case when new.is_hidden then -1 else 1 end
      where id in (select tag_id from forum_topic_tags where topic_id = new.id);
      return null;
    end $$`,
  `create trigger forum_topics_count_visible_tags after update of is_hidden on forum_topics
    for each row when (old.is_hidden is distinct from new.is_hidden) execute function forum_topics_count_visible_tags()`,
  `create trigger forum_topics_uncount_visible_tags before delete on forum_topics
    for each row execute function forum_topics_count_visible_tags()`,
];

const backfill = [
  `insert into transport_user_counts
    select created_by, status, validation_level, vehicle_type_id, count(*), coalesce(sum(total_product_value::numeric), 0)
    from transports group by 1, 2, 3, 4`,
  `insert into transport_day_counts
    select ${day('created_at')}, status, validation_level, count(*), coalesce(sum(total_product_value::numeric), 0)
    from transports group by 1, 2, 3`,
  `insert into complaint_user_counts
    select created_by, status, coalesce(complaint_type_id, 0), coalesce(country_id, 0), count(*), coalesce(sum(amount_paid::numeric), 0),
      count(resolved_at), coalesce(sum(extract(epoch from (resolved_at - created_at))), 0)
    from complaints group by 1, 2, 3, 4`,
  `insert into complaint_day_counts
    select ${day('created_at')}, status, count(*), coalesce(sum(amount_paid::numeric), 0),
      count(resolved_at), coalesce(sum(extract(epoch from (resolved_at - created_at))), 0)
    from complaints group by 1, 2`,
  `insert into user_day_counts (user_id, day, transports, complaints, resolutions)
    select user_id, day, sum(transports), sum(complaints), sum(resolutions) from (
      select created_by as user_id, ${day('created_at')} as day, count(*) as transports, 0 as complaints, 0 as resolutions
        from transports group by 1, 2
      union all
      select created_by, ${day('created_at')}, 0, count(*), 0 from complaints group by 1, 2
      union all
      select created_by, ${day('created_at')}, 0, 0, count(*) from complaint_status_history
        where status = 'RESOLVED' and created_by is not null group by 1, 2
    ) a group by 1, 2`,
  `insert into user_month_counts (user_id, month, transports, complaints, resolutions)
    select user_id, date_trunc('month', day)::date, sum(transports), sum(complaints), sum(resolutions) from user_day_counts group by 1, 2`,
  `insert into actor_counts select actor_role, coalesce(organization_id, 0), is_active, count(*) from actors group by 1, 2, 3`,
  `update tags g set visible_topics_count = c.n
    from (select tt.tag_id, count(*)::int as n from forum_topic_tags tt join forum_topics t on t.id = tt.topic_id
      where not t.is_hidden group by 1) c where c.tag_id = g.id`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
  for (const statement of backfill) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const statement of [
    'drop trigger if exists forum_topics_uncount_visible_tags on forum_topics',
    'drop trigger if exists forum_topics_count_visible_tags on forum_topics',
    'drop function if exists forum_topics_count_visible_tags()',
    'drop trigger if exists forum_topic_tags_count_visible on forum_topic_tags',
    'drop function if exists tags_count_visible_topic()',
    'alter table tags drop column if exists visible_topics_count',
    'drop trigger if exists actors_roll_up_change on actors',
    'drop trigger if exists actors_roll_up on actors',
    'drop function if exists actors_roll_up()',
    'drop table if exists actor_counts',
    'drop index if exists complaint_attachments_unlinked_idx',
    'drop index if exists complaint_status_history_resolved_at_idx',
    'drop index if exists transports_created_by_created_at_cover_idx',
    'drop trigger if exists complaint_history_roll_up on complaint_status_history',
    'drop function if exists complaint_history_roll_up()',
    'drop trigger if exists complaints_roll_up_change on complaints',
    'drop trigger if exists complaints_roll_up on complaints',
    'drop function if exists complaints_roll_up()',
    'drop function if exists complaint_count(complaints, integer, boolean)',
    'drop trigger if exists transports_roll_up_change on transports',
    'drop trigger if exists transports_roll_up on transports',
    'drop function if exists transports_roll_up()',
    'drop function if exists transport_count(transports, integer, boolean)',
    'drop table if exists user_month_counts',
    'drop table if exists user_day_counts',
    'drop table if exists complaint_day_counts',
    'drop table if exists complaint_user_counts',
    'drop table if exists transport_day_counts',
    'drop table if exists transport_user_counts',
  ]) {
    await sql.raw(statement).execute(db);
  }
}
