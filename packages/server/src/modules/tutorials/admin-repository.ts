import type { components } from '@transport-ops/contract';
import { sql } from 'kysely';
import type { operations } from '@transport-ops/contract';
import type { Difficulty, TutorialDuration, TutorialStatus } from '../../db/schema.js';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { fetchPage } from '../../lib/paging.js';
import { queryShape } from '../../lib/query-shape.js';
import { toAdminListItem, toFullTutorial } from './mappers.js';
import { containing } from '../../lib/text.js';
import {
  averageRating,
  orderStatistics,
  chaptersCount,
  chaptersOf,
  completionsCount,
  type Db,
  selectTutorials,
  tagsByTutorial,
} from './query-repository.js';
import type { Defaulted, Query } from '../../http/handlers.js';

type S = components['schemas'];

const prerequisitesCount = sql<number>`(select count(*)::int from tutorial_prerequisites pc where pc.tutorial_id = t.id)`;

export type AdminListFilters = Defaulted<Query<'listAdminTutorials'>, 'page' | 'limit' | 'sortBy' | 'sortOrder'>;

/** The orders' keys: the tutorial's own columns, or the statistics migration 0019 keeps per tutorial. */
const SORT_KEYS = {
  createdAt: sql.ref('t.created_at'),
  updatedAt: sql.ref('t.updated_at'),
  title: sql.ref('t.title'),
  estimatedTime: sql.ref('t.estimated_time'),
  viewsCount: sql.ref('t.views_count'),
  completionsCount,
  averageRating,
} as const;

/** The query parameters of the administrators' list, as the contract declares them. */
export type AdminListParameters = NonNullable<operations['listAdminTutorials']['parameters']['query']>;

/** The ids query's base: `tutorials` alone. */
const adminBase = (db: Db) => db.selectFrom('tutorials as t');
type Where = WhereOf<ReturnType<typeof adminBase>>;

/**
 * Each filter of the administrators' list, declared once (lib/filter-spec.ts), applied by the
 * query shape to the page of ids and its count. Typed from the contract: a query parameter of
 * `listAdminTutorials` with no entry here (and not a paging one) is a type error. The order is the
 * order of the conditions.
 */
export const ADMIN_FILTERS: FilterSpecs<AdminListParameters, Where> = {
  status: { bind: same, where: (eb, v) => eb('t.status', '=', v as TutorialStatus), columns: ['t.status'] },
  difficulty: { bind: same, where: (eb, v) => eb('t.difficulty', '=', v as Difficulty), columns: ['t.difficulty'] },
  duration: { bind: same, where: (eb, v) => eb('t.duration', '=', v as TutorialDuration), columns: ['t.duration'] },
  categoryId: { bind: same, where: (eb, v) => eb('t.category_id', '=', v as number), columns: ['t.category_id'] },
  authorId: { bind: same, where: (eb, v) => eb('t.author_id', '=', v as number), columns: ['t.author_id'] },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('t.title', 'ilike', v as string), eb('t.description', 'ilike', v as string)]),
    columns: ['t.title', 't.description'],
    text: true,
  },
};
const ADMIN_FILTER = filters(ADMIN_FILTERS);

type AdminListParams = BoundFilters<AdminListParameters> & Pick<AdminListFilters, 'sortBy' | 'sortOrder'>;

/**
 * The administrators' list's ids, filtered and in order, from `tutorials` alone (a query shape,
 * lib/query-shape.ts: compiled once per combination of filters and order); the page's rows are
 * loaded with their joins and statistics for those ids only.
 */
const adminIds = queryShape(
  { values: ADMIN_FILTER.values, structure: ['sortBy', 'sortOrder', ...ADMIN_FILTER.structure] },
  (db, p: AdminListParams) => {
    const byStatistics = p.sortBy === 'averageRating' || p.sortBy === 'completionsCount';
    let query = ADMIN_FILTER.apply(
      adminBase(db)
        .$if(byStatistics, (q) => q.leftJoin(orderStatistics(db).as('ks'), 'ks.tutorial_id', 't.id'))
        .select('t.id'),
      p,
    );
    const direction = p.sortOrder === 'ASC' ? 'asc' : 'desc';
    // Unrated tutorials come last in both directions.
    query = query.orderBy(SORT_KEYS[p.sortBy], (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast());
    return query.orderBy('t.id', 'desc');
  },
);

/** Tutorials by id as the administrators' list shows them (any order). */
const adminById = queryShape({ values: ['ids'] }, (db, p: { ids: number[] }) =>
  selectTutorials(db)
    .select([chaptersCount.as('chapters_count'), prerequisitesCount.as('prerequisites_count')])
    .where('t.id', '=', sql<number>`any(${p.ids})`),
);

export async function listAll(db: Db, f: AdminListFilters) {
  const query = adminIds.with(ADMIN_FILTER.bind(f, { sortBy: f.sortBy, sortOrder: f.sortOrder }));
  const { rows: page, total } = await fetchPage(query, f.page, f.limit, db);
  const ids = page.map((r) => r.id);
  const [rows, tags] = await Promise.all([ids.length > 0 ? adminById.execute(db, { ids }) : [], tagsByTutorial(db, ids)]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const data = ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toAdminListItem(row, tags.get(id))] : [];
  });
  return { data, total };
}

/** A tutorial in any status, as administrators see it. */
export async function findTutorial(db: Db, id: number): Promise<S['Tutorial'] | undefined> {
  const row = await selectTutorials(db).select(['t.content', 't.video', 't.attachments']).where('t.id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const [tags, chapters, prerequisites] = await Promise.all([
    tagsByTutorial(db, [id]),
    chaptersOf(db, id),
    db
      .selectFrom('tutorial_prerequisites as tp')
      .innerJoin('tutorials as pt', 'pt.id', 'tp.prerequisite_id')
      .select(['pt.id', 'pt.title', 'pt.status'])
      .where('tp.tutorial_id', '=', id)
      .orderBy('pt.id')
      .execute(),
  ]);
  return Object.assign({}, toFullTutorial(row, tags.get(id), chapters), { status: row.status, prerequisites });
}

// ---------------------------------------------------------------- checks of referenced records

/** True when the category is an active one of scope TUTORIAL (share-locked until the end of the transaction). */
export async function lockCategory(trx: Db, categoryId: number): Promise<boolean> {
  const row = await trx
    .selectFrom('categories')
    .select('id')
    .where('id', '=', categoryId)
    .where('scope', '=', 'TUTORIAL')
    .where('is_active', '=', true)
    .forShare()
    .executeTakeFirst();
  return row !== undefined;
}

/** The tags among `tagIds` that are unknown or inactive; the others are share-locked. */
export async function missingTags(trx: Db, tagIds: number[]): Promise<number[]> {
  if (tagIds.length === 0) return [];
  const found = await trx.selectFrom('tags').select('id').where('id', 'in', tagIds).where('is_active', '=', true).forShare().execute();
  const known = new Set(found.map((t) => t.id));
  return tagIds.filter((id) => !known.has(id));
}

/** The first of `ids` that is not a tutorial; the others are share-locked (not deleted before the commit). */
export async function firstMissingTutorial(trx: Db, ids: number[]): Promise<number | undefined> {
  if (ids.length === 0) return undefined;
  const found = await trx.selectFrom('tutorials').select('id').where('id', 'in', ids).forShare().execute();
  const known = new Set(found.map((t) => t.id));
  return ids.find((id) => !known.has(id));
}

/**
 * Serialises every change of the prerequisite graph (update of prerequisites, delete): two
 * simultaneous updates could otherwise each add one half of a cycle.
 */
export async function lockPrerequisiteGraph(trx: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('tutorial_prerequisites'))`.execute(trx);
}

/**
 * A path from one of the proposed prerequisites back to the tutorial through the existing
 * prerequisites (so the tutorial cannot require it), as tutorial ids from that prerequisite to
 * the tutorial; undefined when there is none. The walk does not go through the tutorial itself,
 * whose own prerequisites are being replaced.
 */
export async function findCycle(trx: Db, tutorialId: number, prerequisiteIds: number[]): Promise<number[] | undefined> {
  if (prerequisiteIds.length === 0) return undefined;
  const { rows } = await sql<{ path: number[] }>`
    with recursive walk(node, path) as (
      select s.id, array[s.id] from unnest(array[${sql.join(prerequisiteIds.map((id) => sql`${id}::int`))}]) as s(id)
      union all
      select e.prerequisite_id, w.path || e.prerequisite_id
      from walk w join tutorial_prerequisites e on e.tutorial_id = w.node
      where w.node <> ${tutorialId}::int and not e.prerequisite_id = any(w.path)
    )
    select path from walk where node = ${tutorialId}::int order by cardinality(path), path limit 1`.execute(trx);
  return rows[0]?.path;
}

/** Number of tutorials that require this one. */
export async function dependentsCount(trx: Db, tutorialId: number): Promise<number> {
  const row = await trx
    .selectFrom('tutorial_prerequisites')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('prerequisite_id', '=', tutorialId)
    .executeTakeFirstOrThrow();
  return row.n;
}
