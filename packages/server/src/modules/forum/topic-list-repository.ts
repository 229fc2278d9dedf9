import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { fetchKeysetPage, type SortKey } from '../../lib/paging.js';
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

/** The visible topics that pass the filters: the base table only. */
export function topicBase(db: Kysely<Database>, f: TopicFilters) {
  return db
    .selectFrom('forum_topics as t')
    .where('t.is_hidden', '=', false)
    .$if(f.categoryId !== undefined, (q) => q.where('t.category_id', '=', f.categoryId!))
    .$if(f.status !== undefined, (q) => q.where('t.status', '=', f.status!))
    .$if(f.tagId !== undefined, (q) =>
      q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('forum_topic_tags as ft')
            .select('ft.topic_id')
            .whereRef('ft.topic_id', '=', 't.id')
            .where('ft.tag_id', '=', f.tagId!),
        ),
      ),
    )
    .$if(f.search !== undefined, (q) => {
      const pattern = containing(f.search!);
      return q.where((eb) => eb.or([eb('t.title', 'ilike', pattern), eb('t.content', 'ilike', pattern)]));
    });
}

/** The rows of some topics, each with its most recent visible message. */
function loadTopics(db: Kysely<Database>, ids: number[]) {
  return topicsQuery(db)
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
    .where('t.id', 'in', ids)
    .execute();
}

/**
 * One page of visible topics: ids first (keyset or offset on the base table), then their rows and
 * last messages, so the per-topic subquery runs for the page only. Ties go by id in the sort's order.
 */
export function listTopics(db: Kysely<Database>, f: TopicFilters) {
  return fetchKeysetPage(db, topicBase(db, f), {
    keys: [...SORT_KEYS[f.sortBy], { column: 't.id', type: 'integer' }],
    direction: f.sortOrder,
    page: f.page,
    limit: f.limit,
    cursor: f.cursor,
    load: (ids) => loadTopics(db, ids),
    idOf: (row) => row.id,
  });
}
