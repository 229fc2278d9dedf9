import type { components } from '@transport-ops/contract';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type ForumStats = components['schemas']['ForumStats'];

const count = (condition?: RawBuilder<unknown>) =>
  condition === undefined ? sql<number>`count(*)::int` : sql<number>`(count(*) filter (where ${condition}))::int`;

/** Forum activity by SQL aggregation over the whole forum, hidden content included. */
export async function forumStats(db: Kysely<Database>): Promise<ForumStats> {
  const since = sql`now() - interval '30 days'`;
  const [topics, messages, reports, categories, authors] = await Promise.all([
    db
      .selectFrom('forum_topics')
      .select([
        count().as('total'),
        count(sql`is_hidden`).as('hidden'),
        count(sql`status = 'ACTIVE'`).as('active'),
        count(sql`status = 'CLOSED'`).as('closed'),
        count(sql`status = 'ARCHIVED'`).as('archived'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('forum_messages')
      .select([
        count(sql`deleted_at is null`).as('total'),
        count(sql`deleted_at is null and is_hidden`).as('hidden'),
        count(sql`deleted_at is not null`).as('deleted'),
        count(sql`deleted_at is null and created_at >= ${since}`).as('last_30_days'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('forum_reports')
      .select([
        count().as('total'),
        count(sql`status = 'PENDING'`).as('pending'),
        count(sql`status = 'RESOLVED'`).as('resolved'),
        count(sql`status = 'DISMISSED'`).as('dismissed'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('categories as c')
      .leftJoin('forum_topics as t', 't.category_id', 'c.id')
      .leftJoin('forum_messages as m', (join) => join.onRef('m.topic_id', '=', 't.id').on('m.deleted_at', 'is', null))
      .select([
        'c.id',
        'c.name',
        sql<number>`count(distinct t.id)::int`.as('topics_count'),
        sql<number>`count(m.id)::int`.as('messages_count'),
      ])
      .where('c.scope', '=', 'FORUM')
      .groupBy(['c.id', 'c.name'])
      .orderBy('topics_count', 'desc')
      .orderBy('messages_count', 'desc')
      .orderBy('c.id', 'asc')
      .limit(5)
      .execute(),
    sql<{ n: number }>`select count(distinct author_id)::int as n from (
        select author_id from forum_topics where created_at >= ${since}
        union all
        select author_id from forum_messages where created_at >= ${since}
      ) recent`.execute(db),
  ]);
  return {
    topics: {
      total: topics.total,
      hidden: topics.hidden,
      byStatus: { ACTIVE: topics.active, CLOSED: topics.closed, ARCHIVED: topics.archived },
    },
    messages: { total: messages.total, hidden: messages.hidden, deleted: messages.deleted, last30Days: messages.last_30_days },
    reports: {
      total: reports.total,
      byStatus: { PENDING: reports.pending, RESOLVED: reports.resolved, DISMISSED: reports.dismissed },
    },
    topCategories: categories.map((c) => ({ id: c.id, name: c.name, topicsCount: c.topics_count, messagesCount: c.messages_count })),
    activeAuthorsLast30Days: authors.rows[0]?.n ?? 0,
    generatedAt: new Date().toISOString(),
  };
}
