import type { operations } from '@transport-ops/contract';
import { sql, type Kysely } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { Database, TopicStatus } from '../../db/schema.js';
import { fetchKeysetPage, type SortKey } from '../../lib/paging.js';
import { queryShape } from '../../lib/query-shape.js';
import type { LastMessageJson } from './mappers.js';
import { topicsQuery } from './topic-repository.js';
import { containing } from '../../lib/text.js';
import type { Defaulted, Query } from '../../http/handlers.js';

/** The contract's `ASC`/`DESC` as Kysely's direction. */
export type TopicFilters = Defaulted<Omit<Query<'listForumTopics'>, 'sortOrder'>, 'page' | 'limit' | 'sortBy'> & {
  sortOrder: 'asc' | 'desc';
};

const SORT_KEYS: Record<TopicFilters['sortBy'], SortKey[]> = {
  recent: [{ column: 't.last_message_at', type: 'timestamptz' }],
  popularity: [
    { column: 't.likes_count', type: 'integer' },
    { column: 't.views_count', type: 'integer' },
  ],
  messages_count: [{ column: 't.messages_count', type: 'integer' }],
};

/** The query parameters of the topic list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listForumTopics']['parameters']['query']>;

const topicsFrom = (db: Kysely<Database>) => db.selectFrom('forum_topics as t');
type Where = WhereOf<ReturnType<typeof topicsFrom>>;

/**
 * Each filter of the topic list, declared once (lib/filter-spec.ts), applied by `baseQuery` to the
 * page and its count. Typed from the contract: a query parameter of `listForumTopics` with no entry
 * here (and not a paging one) is a type error. The order is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, Where> = {
  categoryId: { bind: same, where: (eb, v) => eb('t.category_id', '=', v as number), columns: ['t.category_id'] },
  status: { bind: same, where: (eb, v) => eb('t.status', '=', v as TopicStatus), columns: ['t.status'] },
  tagId: {
    bind: same,
    where: (eb, v) =>
      eb.exists(
        eb
          .selectFrom('forum_topic_tags as ft')
          .select('ft.topic_id')
          .whereRef('ft.topic_id', '=', 't.id')
          .where('ft.tag_id', '=', v as number),
      ),
    columns: ['t.id'],
  },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('t.title', 'ilike', v as string), eb('t.content', 'ilike', v as string)]),
    columns: ['t.title', 't.content'],
    text: true,
  },
};
const FILTER = filters(FILTERS);

type BaseParams = BoundFilters<ListParameters>;

const baseParams = (f: TopicFilters): BaseParams => FILTER.bind(f, {});

function baseQuery(db: Kysely<Database>, p: BaseParams) {
  return FILTER.apply(topicsFrom(db).where('t.is_hidden', '=', false), p);
}

/** The base query as a query shape (lib/query-shape.ts): compiled once per combination of filters. */
const baseShape = queryShape<BaseParams, unknown>({ values: FILTER.values, structure: FILTER.structure }, baseQuery);

/** The visible topics that pass the filters: the base table only. */
export function topicBase(db: Kysely<Database>, f: TopicFilters) {
  return baseQuery(db, baseParams(f));
}

/** The rows of some topics, each with its most recent visible message. */
const topicsById = queryShape({ values: ['ids'] }, (db, p: { ids: number[] }) =>
  topicsQuery(db)
    .select(
      sql<LastMessageJson | null>`(
        select jsonb_build_object(
          'id', lm.id, 'content', left(lm.content, 200), 'created_at', lm.created_at,
          'first_name', coalesce(la.first_name, lu.username), 'last_name', coalesce(la.last_name, ''))
        from forum_messages lm
        join users lu on lu.id = lm.author_id
        left join actors la on la.id = lu.actor_id
        where lm.topic_id = t.id and lm.deleted_at is null and not lm.is_hidden
        order by lm.created_at desc, lm.id desc
        limit 1)`.as('last_message'),
    )
    .where('t.id', '=', sql<number>`any(${p.ids})`),
);

/**
 * One page of visible topics: ids first (keyset or offset on the base table), then their rows and
 * last messages, so the per-topic subquery runs for the page only. Ties go by id in the sort's order.
 */
export function listTopics(db: Kysely<Database>, f: TopicFilters) {
  return fetchKeysetPage(db, baseShape.with(baseParams(f)), {
    keys: [...SORT_KEYS[f.sortBy], { column: 't.id', type: 'integer' }],
    direction: f.sortOrder,
    page: f.page,
    limit: f.limit,
    cursor: f.cursor,
    load: (ids) => topicsById.execute(db, { ids }),
    idOf: (row) => row.id,
  });
}
