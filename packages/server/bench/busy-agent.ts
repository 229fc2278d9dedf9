/**
 * Parts of `pnpm bench:data` (data.ts) that give lists with a small share of a large table their
 * work: a busy agent, a rare term, and tutorials whose popularity and rating come from many
 * progress records.
 */
import { sql } from 'kysely';

/**
 * The rare term: the loading number of the busy agent's first transport (unique), which one forum
 * topic's title names too. Twenty characters, most of their trigrams common: the planner prices the
 * trigram indexes' scans high for it, unlike a short rare word.
 */
export const RARE_TERM_SQL = `select t.loading_number as term from transports t
  where t.created_by = (select id from users where username = 'bench.busy') order by t.id limit 1`;

/** Every `step`-th row, from a fixed offset: an even spread over the table's dates. */
const every = (share: number) => Math.max(1, Math.round(1_000_000 / share));

/** `bench.busy`, an agent of the first generated team, as the creator of `share` of every million transports. */
export function busyAgent(share: number) {
  const step = every(share);
  return [
    sql`insert into users (username, email, password_hash, role_id, country_id, organization_id)
    select 'bench.busy', 'bench.busy@transport-ops.example', u.password_hash, u.role_id, u.country_id,
      coalesce((select id from organizations where code = 'BENCH-T1'), u.organization_id)
    from users u where u.username = 'agent'`,
    sql`with picked as (select id from transports
      where id % ${step} = ${3 % step} and created_by in (select id from users where username like 'bench.agent%'))
    update transports set created_by = (select id from users where username = 'bench.busy') where id in (select id from picked)`,
  ];
}

/** The busy agent as the author of the same share of the forum topics; the first names the rare term. */
export function busyTopics(share: number) {
  const step = every(share);
  return [
    sql`with picked as (select id from forum_topics
      where id % ${step} = ${3 % step} and author_id in (select id from users where username like 'bench.agent%'))
    update forum_topics set author_id = (select id from users where username = 'bench.busy'),
      title = case when id = (select min(id) from picked) then 'Delay at customs for ' || (${sql.raw(RARE_TERM_SQL)}) else title end
    where id in (select id from picked)`,
  ];
}

/**
 * `count` published tutorials (besides the demo's), each opened by about a third of the generated
 * agents: progress records, half of them completed, most of those rated. `views_count` is set from
 * them (one view per user per day, so at least one per record).
 */
export function tutorials(count: number) {
  return [
    sql`insert into tutorials (title, description, summary, content, difficulty, estimated_time, category_id, author_id, status, created_at, updated_at)
    select 'Bench tutorial ' || g, 'Handling case ' || g || ' on the road', 'Case ' || g, 'Steps for case ' || g || '.',
      (array['BEGINNER','INTERMEDIATE','ADVANCED'])[1 + g % 3], 5 + g % 90, c.ids[1 + g % c.k], (select id from users where username = 'supervisor'),
      'PUBLISHED', now() - g * interval '1 day', now() - g * interval '1 day'
    from generate_series(1, ${count}) g,
      (select array_agg(id order by id) as ids, count(*)::int as k from categories where scope = 'TUTORIAL') c`,
    sql`insert into tutorial_progress (tutorial_id, user_id, time_spent, last_viewed_at, completed_at, rating, created_at)
    select x.tid, x.uid, (random() * 3600)::int, now() - random() * interval '300 days',
      case when x.q < 0.5 then now() - x.q * interval '300 days' end, case when x.q < 0.4 then 1 + (x.q * 100)::int % 5 end, x.created_at
    from (select t.id as tid, u.id as uid, t.created_at, random() as q, random() as opened from tutorials t cross join users u
      where t.title like 'Bench tutorial %' and u.username like 'bench.%') x
    where x.opened < 0.33`,
    sql`update tutorials t set views_count = p.n * (1 + t.id % 4)
    from (select tutorial_id, count(*)::int as n from tutorial_progress group by tutorial_id) p where p.tutorial_id = t.id and t.title like 'Bench tutorial %'`,
  ];
}
