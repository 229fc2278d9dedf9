import type { components } from '@transport-ops/contract';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { statsCache } from '../../lib/stats-cache.js';

type ForumStats = components['schemas']['ForumStats'];

const cache = statsCache<ForumStats>('forum_topics', 'forum_messages', 'forum_reports', 'categories');

/**
 * Forum activity, hidden content included. Totals come from the counters the database keeps per
 * category (forum_category_counts, forum_report_counts: migration 0007; sums by key since 0016), the 30-day figures from
 * index ranges; the answer is reused while no counted forum column changes (statsCache).
 */
export function forumStats(db: Kysely<Database>): Promise<ForumStats> {
  return cache(db, 'forum', () => computeStats(db));
}

/** The 30-day figures, by index ranges on (created_at, author_id): the window's rows only, however old the forum. */
export function recentActivityQuery() {
  const since = sql`now() - interval '30 days'`;
  return sql<{ messages: number; authors: number }>`select
      (select count(*)::int from forum_messages where created_at >= ${since} and deleted_at is null) as messages,
      (select count(distinct author_id)::int from (
        select author_id from forum_topics where created_at >= ${since}
        union all
        select author_id from forum_messages where created_at >= ${since}
      ) a) as authors`;
}

async function computeStats(db: Kysely<Database>): Promise<ForumStats> {
  const sum = (column: string) => sql<number>`coalesce(sum(${sql.ref(column)}), 0)::int`;
  const [totals, reports, categories, recent] = await Promise.all([
    db
      .selectFrom('forum_category_counts')
      .select([
        sum('topics').as('topics'),
        sum('topics_hidden').as('topics_hidden'),
        sum('topics_active').as('active'),
        sum('topics_closed').as('closed'),
        sum('topics_archived').as('archived'),
        sum('messages').as('messages'),
        sum('messages_hidden').as('messages_hidden'),
        sum('messages_deleted').as('messages_deleted'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('forum_report_counts')
      .select(['status', sum('reports').as('reports')])
      .groupBy('status')
      .execute(),
    db
      .selectFrom('categories as c')
      .leftJoin(
        (eb) =>
          eb
            .selectFrom('forum_category_counts')
            .select(['category_id', sum('topics').as('topics'), sum('messages').as('messages')])
            .groupBy('category_id')
            .as('n'),
        (join) => join.onRef('n.category_id', '=', 'c.id'),
      )
      .select([
        'c.id',
        'c.name',
        sql<number>`coalesce(n.topics, 0)`.as('topics_count'),
        sql<number>`coalesce(n.messages, 0)`.as('messages_count'),
      ])
      .where('c.scope', '=', 'FORUM')
      .orderBy('topics_count', 'desc')
      .orderBy('messages_count', 'desc')
      .orderBy('c.id', 'asc')
      .limit(5)
      .execute(),
    recentActivityQuery().execute(db),
  ]);
  const byStatus = { PENDING: 0, RESOLVED: 0, DISMISSED: 0 };
  for (const r of reports) byStatus[r.status] = Number(r.reports);
  const window = recent.rows[0];
  return {
    topics: {
      total: totals.topics,
      hidden: totals.topics_hidden,
      byStatus: { ACTIVE: totals.active, CLOSED: totals.closed, ARCHIVED: totals.archived },
    },
    messages: {
      total: totals.messages,
      hidden: totals.messages_hidden,
      deleted: totals.messages_deleted,
      last30Days: window?.messages ?? 0,
    },
    reports: { total: byStatus.PENDING + byStatus.RESOLVED + byStatus.DISMISSED, byStatus },
    topCategories: categories.map((c) => ({
      id: c.id,
      name: c.name,
      topicsCount: Number(c.topics_count),
      messagesCount: Number(c.messages_count),
    })),
    activeAuthorsLast30Days: window?.authors ?? 0,
    generatedAt: new Date().toISOString(),
  };
}
