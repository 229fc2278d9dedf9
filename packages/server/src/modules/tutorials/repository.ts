import { firstViewToday } from '../../lib/views.js';
import type { components } from '@transport-ops/contract';
import type { Defaulted, Query } from '../../http/handlers.js';
import { sql } from 'kysely';
import type { operations } from '@transport-ops/contract';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { Difficulty, TutorialDuration } from '../../db/schema.js';
import { fetchPage } from '../../lib/paging.js';
import { queryShape } from '../../lib/query-shape.js';
import { iso } from '../../lib/time.js';
import { toFullTutorial, toListItem } from './mappers.js';
import { idList } from './rules.js';
import { containing } from '../../lib/text.js';
import {
  averageRating,
  orderStatistics,
  chaptersCount,
  chaptersOf,
  type Db,
  percentage,
  selectTutorials,
  tagsByTutorial,
  viewedCount,
} from './query-repository.js';

type S = components['schemas'];

/** Published tutorials with the caller's progress record (`p`, absent when they never opened it). */
function selectPublished(db: Db, userId: number) {
  return selectTutorials(db)
    .leftJoin('tutorial_progress as p', (join) => join.onRef('p.tutorial_id', '=', 't.id').on('p.user_id', '=', userId))
    .select(['p.completed_at as my_completed_at', 'p.last_viewed_at as my_last_viewed_at'])
    .where('t.status', '=', 'PUBLISHED');
}

/** The query parameters of the published list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listTutorials']['parameters']['query']>;
/** The list's query with its defaults applied. */
export type ListFilters = Defaulted<Query<'listTutorials'>, 'page' | 'limit' | 'sortBy'>;

/** The ids query's base: published tutorials, `tutorials` alone. */
const publishedBase = (db: Db) => db.selectFrom('tutorials as t').where('t.status', '=', 'PUBLISHED');
type Where = WhereOf<ReturnType<typeof publishedBase>>;

/** Tutorials carrying at least one of the tags. */
const withAnyTag = (tagIds: unknown) =>
  sql<boolean>`exists (select 1 from tutorial_tags ft where ft.tutorial_id = t.id and ft.tag_id = any(${tagIds}))`;

/**
 * Each filter of the published list, declared once (lib/filter-spec.ts), applied by the query
 * shape to the page of ids and its count. Typed from the contract: a query parameter of
 * `listTutorials` with no entry here (and not a paging one) is a type error. The order is the
 * order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, Where> = {
  category: { bind: same, where: (eb, v) => eb('t.category_id', '=', v as number), columns: ['t.category_id'] },
  difficulty: { bind: same, where: (eb, v) => eb('t.difficulty', '=', v as Difficulty), columns: ['t.difficulty'] },
  duration: { bind: same, where: (eb, v) => eb('t.duration', '=', v as TutorialDuration), columns: ['t.duration'] },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('t.title', 'ilike', v as string), eb('t.description', 'ilike', v as string)]),
    columns: ['t.title', 't.description'],
    text: true,
  },
  // Comma-separated ids, bound as one array (one statement whatever their number).
  tags: { bind: idList, where: (_eb, v) => withAnyTag(v), columns: ['t.id'] },
};
const FILTER = filters(FILTERS);

/**
 * The published list's ids, filtered and in order, read from `tutorials` alone (lib/query-shape.ts:
 * compiled once per combination of filters and sort). The page's statistics (aggregated from the
 * progress records) are computed for its rows only; the rating order reads the maintained averages.
 */
const publishedIds = queryShape(
  { values: FILTER.values, structure: ['sortBy', ...FILTER.structure] },
  (db, p: BoundFilters<ListParameters> & { sortBy: ListFilters['sortBy'] }) => {
    let query = FILTER.apply(
      publishedBase(db)
        .$if(p.sortBy === 'rating', (q) => q.leftJoin(orderStatistics(db).as('ks'), 'ks.tutorial_id', 't.id'))
        .select('t.id'),
      p,
    );
    if (p.sortBy === 'popular') query = query.orderBy('t.views_count', 'desc');
    else if (p.sortBy === 'rating') query = query.orderBy(averageRating, (ob) => ob.desc().nullsLast());
    else if (p.sortBy === 'duration') query = query.orderBy('t.estimated_time', 'asc');
    else query = query.orderBy('t.created_at', 'desc');
    return query.orderBy('t.id', 'desc');
  },
);

/** Published tutorials by id with the caller's progress (any order). */
const publishedById = queryShape({ values: ['userId', 'ids'] }, (db, p: { userId: number; ids: number[] }) =>
  selectPublished(db, p.userId).where('t.id', '=', sql<number>`any(${p.ids})`),
);

export async function listPublished(db: Db, userId: number, f: ListFilters) {
  const query = publishedIds.with(FILTER.bind(f, { sortBy: f.sortBy }));
  const { rows: page, total } = await fetchPage(query, f.page, f.limit, db);
  const ids = page.map((r) => r.id);
  const [rows, tags] = await Promise.all([ids.length > 0 ? publishedById.execute(db, { userId, ids }) : [], tagsByTutorial(db, ids)]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const data = ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toListItem(row, tags.get(id))] : [];
  });
  return { data, total };
}

/**
 * Counts the caller as a viewer of a published tutorial and sets their `lastViewedAt` (the first
 * view creates their progress record). False when no published tutorial has this id.
 */
export async function recordView(db: Db, tutorialId: number, userId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await openProgress(trx, tutorialId, userId))) return false;
    if (await firstViewToday(trx, 'TUTORIAL', tutorialId, userId)) {
      await trx
        .updateTable('tutorials')
        .set((eb) => ({ views_count: eb('views_count', '+', 1) }))
        .where('id', '=', tutorialId)
        .execute();
    }
    return true;
  });
}

async function openProgress(db: Db, tutorialId: number, userId: number): Promise<boolean> {
  const row = await db
    .insertInto('tutorial_progress')
    .columns(['tutorial_id', 'user_id'])
    .expression(
      db
        .selectFrom('tutorials')
        .select(['id', sql<number>`${userId}::int`.as('user_id')])
        .where('id', '=', tutorialId)
        .where('status', '=', 'PUBLISHED'),
    )
    .onConflict((oc) => oc.columns(['tutorial_id', 'user_id']).doUpdateSet({ last_viewed_at: sql`now()` }))
    .returning('tutorial_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function findPublishedDetail(db: Db, tutorialId: number, userId: number): Promise<S['TutorialDetail'] | undefined> {
  const row = await selectPublished(db, userId)
    .leftJoin('tutorial_chapters as cc', (join) => join.onRef('cc.tutorial_id', '=', 't.id').onRef('cc.id', '=', 'p.current_chapter_id'))
    .select([
      't.content',
      't.video',
      't.attachments',
      't.category_id as tutorial_category_id',
      'p.time_spent',
      'p.rating',
      'cc.id as current_chapter_id',
      'cc.title as current_chapter_title',
      chaptersCount.as('chapters_count'),
      viewedCount.as('viewed_count'),
    ])
    .where('t.id', '=', tutorialId)
    .executeTakeFirst();
  if (!row) return undefined;
  const [tags, chapters, prerequisites, related] = await Promise.all([
    tagsByTutorial(db, [row.id]),
    chaptersOf(db, row.id),
    publishedPrerequisites(db, row.id, userId),
    relatedTutorials(db, row.id, row.category_id),
  ]);
  const isCompleted = row.my_completed_at !== null;
  const lastViewedAt = iso(row.my_last_viewed_at);
  return Object.assign({}, toFullTutorial(row, tags.get(row.id), chapters), {
    prerequisites,
    relatedTutorials: related,
    userProgress: {
      isCompleted,
      completionPercentage: percentage(row.viewed_count, row.chapters_count),
      lastViewedAt,
      timeSpent: row.time_spent ?? 0,
      currentChapter: row.current_chapter_id === null ? null : { id: row.current_chapter_id, title: row.current_chapter_title! },
      userRating: row.rating ?? null,
    },
    isCompleted,
    lastViewedAt,
  });
}

/** SQL: has the user completed the tutorial whose id is in `column`? */
const completedBy = (userId: number, column: string) =>
  sql<boolean>`exists (select 1 from tutorial_progress cp
    where cp.tutorial_id = ${sql.ref(column)} and cp.user_id = ${userId} and cp.completed_at is not null)`;

/** The published prerequisites of a tutorial, with the user's completion (drafts are neither shown nor required). */
function publishedPrerequisites(db: Db, tutorialId: number, userId: number) {
  return db
    .selectFrom('tutorial_prerequisites as tp')
    .innerJoin('tutorials as pt', 'pt.id', 'tp.prerequisite_id')
    .select(['pt.id', 'pt.title', completedBy(userId, 'pt.id').as('isCompleted')])
    .where('tp.tutorial_id', '=', tutorialId)
    .where('pt.status', '=', 'PUBLISHED')
    .orderBy('pt.id')
    .execute();
}

/** Up to 5 other published tutorials of the category: most shared tags first, then the most viewed. */
async function relatedTutorials(db: Db, tutorialId: number, categoryId: number): Promise<S['TutorialRelated'][]> {
  const rows = await db
    .selectFrom('tutorials as o')
    .select(['o.id', 'o.title', 'o.difficulty', 'o.estimated_time'])
    .where('o.status', '=', 'PUBLISHED')
    .where('o.category_id', '=', categoryId)
    .where('o.id', '<>', tutorialId)
    .orderBy(
      sql`(select count(*) from tutorial_tags mine join tutorial_tags theirs on theirs.tag_id = mine.tag_id
        where mine.tutorial_id = ${tutorialId} and theirs.tutorial_id = o.id)`,
      'desc',
    )
    .orderBy(sql`(select count(*) from tutorial_progress v where v.tutorial_id = o.id)`, 'desc')
    .orderBy('o.id', 'desc')
    .limit(5)
    .execute();
  return rows.map((r) => ({ id: r.id, title: r.title, difficulty: r.difficulty, estimatedTime: r.estimated_time }));
}

/** Active tutorial categories by name, with the number of published tutorials in each. */
export async function listCategories(db: Db): Promise<S['TutorialCategory'][]> {
  const rows = await db
    .selectFrom('categories as c')
    .leftJoin('tutorials as t', (join) => join.onRef('t.category_id', '=', 'c.id').on('t.status', '=', 'PUBLISHED'))
    .select(['c.id', 'c.name', 'c.description', 'c.color', 'c.icon', sql<number>`count(t.id)::int`.as('tutorials_count')])
    .where('c.scope', '=', 'TUTORIAL')
    .where('c.is_active', '=', true)
    .groupBy('c.id')
    .orderBy('c.name')
    .orderBy('c.id')
    .execute();
  return rows.map((c) => ({
    id: c.id,
    name: c.name,
    description: c.description ?? '',
    color: c.color ?? '#607D8B',
    icon: c.icon ?? 'folder',
    tutorialsCount: c.tutorials_count,
    isActive: true,
  }));
}

/** The query parameters of the search, as the contract declares them. */
export type SearchParameters = NonNullable<operations['searchTutorials']['parameters']['query']>;
/** The search's query with its defaults applied. */
export type SearchFilters = Defaulted<Query<'searchTutorials'>, 'page' | 'limit'>;

const tsquery = (q: unknown) => sql`websearch_to_tsquery('english', ${q})`;
/** "A,B" → ["A", "B"] (the contract's pattern has checked the form), bound as one array. */
const valueList = (text: string) => [...new Set(text.split(','))];

/**
 * Each filter of the search, declared once (lib/filter-spec.ts), applied by the query shape to the
 * page and its count. Typed from the contract: a query parameter of `searchTutorials` with no entry
 * here (and not a paging one) is a type error. The order is the order of the conditions.
 */
export const SEARCH_FILTERS: FilterSpecs<SearchParameters, WhereOf<ReturnType<typeof selectTutorials>>> = {
  q: { bind: same, where: (_eb, v) => sql<boolean>`t.search_vector @@ ${tsquery(v)}`, columns: ['t.search_vector'], text: true },
  difficulty: { bind: valueList, where: (eb, v) => eb('t.difficulty', '=', sql<Difficulty>`any(${v})`), columns: ['t.difficulty'] },
  duration: { bind: valueList, where: (eb, v) => eb('t.duration', '=', sql<TutorialDuration>`any(${v})`), columns: ['t.duration'] },
  tags: { bind: idList, where: (_eb, v) => withAnyTag(v), columns: ['t.id'] },
  minRating: { bind: same, where: (eb, v) => eb('s.average_rating', '>=', v as number), columns: ['s.average_rating'] },
  maxDuration: { bind: same, where: (eb, v) => eb('t.estimated_time', '<=', v as number), columns: ['t.estimated_time'] },
};
const SEARCH_FILTER = filters(SEARCH_FILTERS);

/** Full-text search over the published tutorials, ranked by `ts_rank` (title A > description B > content C). */
/** The search as a query shape (lib/query-shape.ts): compiled once per combination of filters. */
const search = queryShape({ values: SEARCH_FILTER.values, structure: SEARCH_FILTER.structure }, (db, p: BoundFilters<SearchParameters>) => {
  const query = selectTutorials(db)
    .select(sql<number>`ts_rank(t.search_vector, ${tsquery(p.q)})::float8`.as('rank'))
    .where('t.status', '=', 'PUBLISHED');
  return SEARCH_FILTER.apply(query, p).orderBy('rank', 'desc').orderBy('t.id', 'desc');
});

export async function searchPublished(db: Db, f: SearchFilters): Promise<{ data: S['TutorialSearchItem'][]; total: number }> {
  const query = search.with(SEARCH_FILTER.bind(f, {}));
  const { rows, total } = await fetchPage(query, f.page, f.limit, db);
  const data = rows.map((r) => ({
    id: r.id,
    title: r.title,
    description: r.description ?? '',
    difficulty: r.difficulty,
    duration: r.duration,
    estimatedTime: r.estimated_time,
    averageRating: r.average_rating ?? null,
    relevanceScore: r.rank / (r.rank + 1),
  }));
  return { data, total };
}
