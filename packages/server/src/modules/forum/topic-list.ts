import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { fetchPage } from '../../lib/paging.js';
import type { LastMessageJson } from './mappers.js';
import { topicsQuery } from './topic-repository.js';
import { containing } from '../../lib/text.js';
import type { Defaulted, Query } from '../../http/handlers.js';

/** The contract's `ASC`/`DESC` as Kysely's direction. */
export type TopicFilters = Defaulted<Omit<Query<'listForumTopics'>, 'sortOrder'>, 'page' | 'limit' | 'sortBy'> & { sortOrder: 'asc' | 'desc' };


/** One page of visible topics, each with its most recent visible message. */
export function listTopics(db: Kysely<Database>, f: TopicFilters) {
  let query = topicsQuery(db)
    .where('t.is_hidden', '=', false)
    .select(
      // A scalar subquery (not a join) so that the page count does not compute it.
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
    .$if(f.categoryId !== undefined, (q) => q.where('t.category_id', '=', f.categoryId!))
    .$if(f.status !== undefined, (q) => q.where('t.status', '=', f.status!))
    .$if(f.tagId !== undefined, (q) =>
      q.where((eb) =>
        eb.exists(eb.selectFrom('forum_topic_tags as ft').select('ft.topic_id').whereRef('ft.topic_id', '=', 't.id').where('ft.tag_id', '=', f.tagId!)),
      ),
    )
    .$if(f.search !== undefined, (q) => {
      const pattern = containing(f.search!);
      return q.where((eb) => eb.or([eb('t.title', 'ilike', pattern), eb('t.content', 'ilike', pattern)]));
    });
  if (f.sortBy === 'popularity') query = query.orderBy('t.likes_count', f.sortOrder).orderBy('t.views_count', f.sortOrder);
  else if (f.sortBy === 'messages_count') query = query.orderBy('t.messages_count', f.sortOrder);
  else query = query.orderBy('t.last_message_at', f.sortOrder);
  return fetchPage(query.orderBy('t.id', 'desc'), f.page, f.limit);
}
