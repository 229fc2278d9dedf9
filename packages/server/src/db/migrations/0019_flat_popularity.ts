import { type Kysely, sql } from 'kysely';

/*
 * Lists that grew with the tables around a small share of them.
 *
 * Transport search: one trigram index over the creator and the four searched texts joined
 * (`loading_number || ' ' || product_label || ' ' || loading_point || ' ' || unloading_point`, the
 * nullable ones as ''). The search tests the joined text (a superset of the matches) before each
 * text: one index scan instead of four OR'ed ones, which the planner priced higher than walking an
 * agent's 10,000 rows by date for a 20-character term such as a loading number (35 ms at 1M, 2 ms
 * by the index).
 *
 * Tutorial statistics kept per tutorial, append-only as 0016 keeps the others: the lists computed
 * completions, ratings and average times by aggregating every progress record of every tutorial on
 * each request (205 tutorials with 33,000 records: 10-20 ms), and their rating and completion
 * orders need them for all tutorials.
 * - `tutorial_statistics_folded` holds the totals per tutorial; writers of `tutorial_progress` only
 *   append their change to `tutorial_statistics_delta` (a row-level trigger, and only when a
 *   record's completion, rating or time spent on a completed tutorial changes), never update a
 *   shared row. The view `tutorial_statistics` is both parts: sum by tutorial to read a figure.
 * - `fold_statistics()` (0016, kept as `fold_statistics_0016()`) now also folds these appends, by
 *   the same single `delete … returning` statement per table.
 * Frozen in time: never import application code here.
 */

const COLUMNS = 'tutorial_id, completions, ratings, rating_sum, completed_time_sum';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index transports_created_by_search_trgm_idx on transports using gin (created_by,
    (loading_number || ' ' || coalesce(product_label, '') || ' ' || loading_point || ' ' || coalesce(unloading_point, '')) gin_trgm_ops)
    with (gin_pending_list_limit = 64)`.execute(db);
  await sql`create table tutorial_statistics_folded (
    tutorial_id integer primary key,
    completions bigint not null default 0,
    ratings bigint not null default 0,
    rating_sum bigint not null default 0,
    completed_time_sum bigint not null default 0
  )`.execute(db);
  await sql`create table tutorial_statistics_delta (like tutorial_statistics_folded including defaults)`.execute(db);
  await sql`create index tutorial_statistics_delta_tutorial_idx on tutorial_statistics_delta (tutorial_id)`.execute(db);
  await sql`comment on table tutorial_statistics_delta is 'Rows appended by the writers of tutorial_progress (never updated); fold_statistics() adds them to tutorial_statistics_folded.'`.execute(
    db,
  );
  await sql
    .raw(
      `create view tutorial_statistics as select ${COLUMNS} from tutorial_statistics_folded union all select ${COLUMNS} from tutorial_statistics_delta`,
    )
    .execute(db);
  await sql`insert into tutorial_statistics_folded
    select tutorial_id, count(completed_at), count(rating), coalesce(sum(rating), 0), coalesce(sum(time_spent) filter (where completed_at is not null), 0)
    from tutorial_progress group by tutorial_id`.execute(db);
  // One appended row per changed record: the new values counted in, the old ones out.
  await sql`create function tutorial_statistics_append() returns trigger language plpgsql as $$
    declare
      n_done int := 0; n_rated int := 0; n_sum int := 0; n_time bigint := 0;
      o_done int := 0; o_rated int := 0; o_sum int := 0; o_time bigint := 0;
      id int;
    begin
      if tg_op <> 'DELETE' then
        id := new.tutorial_id;
        if new.completed_at is not null then n_done := 1; n_time := new.time_spent; end if;
        if new.rating is not null then n_rated := 1; n_sum := new.rating; end if;
      end if;
      if tg_op <> 'INSERT' then
        id := old.tutorial_id;
        if old.completed_at is not null then o_done := 1; o_time := old.time_spent; end if;
        if old.rating is not null then o_rated := 1; o_sum := old.rating; end if;
      end if;
      if (n_done, n_rated, n_sum, n_time) is distinct from (o_done, o_rated, o_sum, o_time) then
        insert into tutorial_statistics_delta values (id, n_done - o_done, n_rated - o_rated, n_sum - o_sum, n_time - o_time);
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger tutorial_progress_statistics after insert or update or delete on tutorial_progress
    for each row execute function tutorial_statistics_append()`.execute(db);
  await sql`alter function fold_statistics() rename to fold_statistics_0016`.execute(db);
  await sql`create function fold_statistics() returns bigint language plpgsql as $$
    declare n bigint;
    begin
      with d as (delete from tutorial_statistics_delta returning *)
      insert into tutorial_statistics_folded as x
        select tutorial_id, sum(completions), sum(ratings), sum(rating_sum), sum(completed_time_sum) from d group by tutorial_id
      on conflict (tutorial_id) do update set completions = x.completions + excluded.completions, ratings = x.ratings + excluded.ratings,
        rating_sum = x.rating_sum + excluded.rating_sum, completed_time_sum = x.completed_time_sum + excluded.completed_time_sum;
      get diagnostics n = row_count;
      return fold_statistics_0016() + n;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function fold_statistics()`.execute(db);
  await sql`alter function fold_statistics_0016() rename to fold_statistics`.execute(db);
  await sql`drop trigger tutorial_progress_statistics on tutorial_progress`.execute(db);
  await sql`drop function tutorial_statistics_append()`.execute(db);
  await sql`drop view tutorial_statistics`.execute(db);
  await sql`drop table tutorial_statistics_delta`.execute(db);
  await sql`drop table tutorial_statistics_folded`.execute(db);
  await sql`drop index transports_created_by_search_trgm_idx`.execute(db);
}
