import type { components, operations } from '@transport-ops/contract';
import { sql } from 'kysely';
import type { Difficulty, TutorialDuration, TutorialStatus } from '../../db/schema.js';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { fetchPage } from '../../lib/paging.js';
import { queryShape } from '../../lib/query-shape.js';
import { toAdminListItem, toFullTutorial } from './mappers.js';
import { containing } from '../../lib/text.js';
import { chaptersCount, chaptersOf, type Db, selectTutorials, tagsByTutorial } from './query-repository.js';
import type { Defaulted, Query } from '../../http/handlers.js';

type S = components['schemas'];

const prerequisitesCount = sql<number>`(select count(*)::int from tutorial_prerequisites pc where pc.tutorial_id = t.id)`;

export type AdminListFilters = Defaulted<Query<'listAdminTutorials'>, 'page' | 'limit' | 'sortBy' | 'sortOrder'>;

const SORT_COLUMNS = {
  createdAt: 't.created_at',
  updatedAt: 't.updated_at',
  title: 't.title',
  estimatedTime: 't.estimated_time',
  viewsCount: 't.views_count',
  completionsCount: 's.completions_count',
  averageRating: 's.average_rating',
} as const;

/** The query parameters of the administrators' list, as the contract declares them. */
export type AdminListParameters = NonNullable<operations['listAdminTutorials']['parameters']['query']>;

const adminFrom = (db: Db) =>
  selectTutorials(db).select([chaptersCount.as('chapters_count'), prerequisitesCount.as('prerequisites_count')]);
type Where = WhereOf<ReturnType<typeof adminFrom>>;

/**
 * Each filter of the administrators' list, declared once (lib/filter-spec.ts), applied by the
 * query shape to the page and its count. Typed from the contract: a query parameter of
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

/** The administrators' list as a query shape (lib/query-shape.ts): compiled once per combination of filters and order. */
const adminList = queryShape(
  { values: ADMIN_FILTER.values, structure: ['sortBy', 'sortOrder', ...ADMIN_FILTER.structure] },
  (db, p: AdminListParams) => {
    let query = ADMIN_FILTER.apply(adminFrom(db), p);
    const direction = p.sortOrder === 'ASC' ? 'asc' : 'desc';
    // Unrated tutorials come last in both directions.
    query = query.orderBy(sql.ref(SORT_COLUMNS[p.sortBy]), (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast());
    return query.orderBy('t.id', 'desc');
  },
);

export async function listAll(db: Db, f: AdminListFilters) {
  const query = adminList.with(ADMIN_FILTER.bind(f, { sortBy: f.sortBy, sortOrder: f.sortOrder }));
  const { rows, total } = await fetchPage(query, f.page, f.limit, db);
  const tags = await tagsByTutorial(
    db,
    rows.map((r) => r.id),
  );
  return { data: rows.map((r) => toAdminListItem(r, tags.get(r.id))), total };
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
