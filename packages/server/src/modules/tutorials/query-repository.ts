import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { queryShape } from '../../lib/query-shape.js';

export type Db = Kysely<Database>;

/**
 * The tutorials with what every shape shows: category, author and statistics. The statistics are
 * the per-tutorial totals of the progress records that migration 0019 keeps (folded and appended
 * rows, summed: one row per tutorial, zeros when nobody opened it), not the records themselves.
 * `viewsCount` is the stored counter: one per user per day (firstViewToday).
 */
export function selectTutorials(db: Db) {
  return db
    .selectFrom('tutorials as t')
    .innerJoin('categories as c', 'c.id', 't.category_id')
    .innerJoin('users as u', 'u.id', 't.author_id')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('tutorial_statistics as sp')
          .whereRef('sp.tutorial_id', '=', 't.id')
          .select([
            sql<number>`coalesce(sum(sp.completions), 0)::int`.as('completions_count'),
            sql<number | null>`round(sum(sp.rating_sum) / nullif(sum(sp.ratings), 0), 1)::float8`.as('average_rating'),
            sql<number>`coalesce(sum(sp.ratings), 0)::int`.as('ratings_count'),
            sql<number | null>`round(sum(sp.completed_time_sum) / nullif(sum(sp.completions), 0))::int`.as('average_completion_time'),
          ])
          .as('s'),
      (join) => join.onTrue(),
    )
    .select([
      't.id',
      't.public_id',
      't.title',
      't.description',
      't.summary',
      't.difficulty',
      't.duration',
      't.estimated_time',
      't.status',
      't.thumbnail',
      't.created_at',
      't.updated_at',
      'c.id as category_id',
      'c.name as category_name',
      'c.description as category_description',
      'c.color as category_color',
      'c.icon as category_icon',
      'u.id as author_id',
      'u.username as author_username',
      'u.bio as author_bio',
      'u.avatar_updated_at as author_avatar_at',
      'r.name as author_role',
      'a.first_name as author_first_name',
      'a.last_name as author_last_name',
      't.views_count',
      's.completions_count',
      's.average_rating',
      's.ratings_count',
      's.average_completion_time',
    ]);
}

/**
 * The statistics the lists order by, one row per tutorial that has any (join it as `ks` on
 * `ks.tutorial_id`): the kept totals summed once for every tutorial, so an order by them reads one
 * row per tutorial, never the progress records.
 */
export function orderStatistics(db: Db) {
  return db
    .selectFrom('tutorial_statistics as ks')
    .select([
      'ks.tutorial_id',
      sql<number | null>`round(sum(ks.rating_sum) / nullif(sum(ks.ratings), 0), 1)::float8`.as('average_rating'),
      sql<number>`sum(ks.completions)::int`.as('completions_count'),
    ])
    .groupBy('ks.tutorial_id');
}

/** Order keys over `orderStatistics` joined as `ks`: the average rating (null when nobody rated) and the completions. */
export const averageRating = sql<number | null>`ks.average_rating`;
export const completionsCount = sql<number>`coalesce(ks.completions_count, 0)`;

export type TutorialRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectTutorials>['executeTakeFirst']>>>;

export interface TagRow {
  id: number;
  name: string;
  color: string | null;
}

const tagsOf = queryShape({ values: ['tutorialIds'] }, (db, p: { tutorialIds: number[] }) =>
  db
    .selectFrom('tutorial_tags as tt')
    .innerJoin('tags as g', 'g.id', 'tt.tag_id')
    .select(['tt.tutorial_id', 'g.id', 'g.name', 'g.color'])
    .where('tt.tutorial_id', '=', sql<number>`any(${p.tutorialIds})`)
    .orderBy('g.name')
    .orderBy('g.id'),
);

/** The tags of each tutorial, by name. */
export async function tagsByTutorial(db: Db, tutorialIds: number[]): Promise<Map<number, TagRow[]>> {
  const byTutorial = new Map<number, TagRow[]>();
  if (tutorialIds.length === 0) return byTutorial;
  const rows = await tagsOf.execute(db, { tutorialIds });
  for (const { tutorial_id, ...tag } of rows) {
    const list = byTutorial.get(tutorial_id) ?? [];
    list.push(tag);
    byTutorial.set(tutorial_id, list);
  }
  return byTutorial;
}

/** Chapters of a tutorial in reading order. */
export function chaptersOf(db: Db, tutorialId: number) {
  return db
    .selectFrom('tutorial_chapters')
    .select(['id', 'title', 'start_time', 'duration', 'description'])
    .where('tutorial_id', '=', tutorialId)
    .orderBy('position')
    .execute();
}

/** Number of chapters of the tutorial `t`. */
export const chaptersCount = sql<number>`(select count(*)::int from tutorial_chapters ch where ch.tutorial_id = t.id)`;

/** Number of chapters of the tutorial `t` listed among the viewed chapters of the progress record `p`. */
export const viewedCount = sql<number>`(select count(*)::int from tutorial_chapters ch
  where ch.tutorial_id = t.id and ch.id = any(p.viewed_chapter_ids))`;

/** Viewed chapters / chapters × 100, rounded down. */
export const percentage = (viewed: number, total: number) => (total === 0 ? 0 : Math.floor((viewed * 100) / total));
