import type { operations } from '@transport-ops/contract';
import { sql, type Kysely } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { Database, ReportReason, ReportStatus, VoteKind } from '../../db/schema.js';
import { fetchPage } from '../../lib/paging.js';
import { queryShape } from '../../lib/query-shape.js';
import { containing } from '../../lib/text.js';
import { liveCount } from '../../lib/counters.js';

type Db = Kysely<Database>;

/* Votes, topic likes, subscriptions and reports: one row per (thing, user), guarded by primary keys. */

const counterOf = (vote: VoteKind) => (vote === 'LIKE' ? 'likes_count' : 'dislikes_count');

/** Records a vote and bumps its counter (call inside a transaction); a second vote breaks `forum_votes_pkey`. */
export async function castVote(trx: Db, messageId: number, userId: number, vote: VoteKind) {
  await trx.insertInto('forum_votes').values({ message_id: messageId, user_id: userId, vote }).execute();
  const column = counterOf(vote);
  return trx
    .updateTable('forum_messages')
    .set((eb) => ({ [column]: eb(column, '+', 1) }))
    .where('id', '=', messageId)
    .returning(['likes_count', 'dislikes_count'])
    .executeTakeFirstOrThrow();
}

/** Deletes the user's vote, if any, and lowers its counter (call inside a transaction). */
export async function removeVote(trx: Db, messageId: number, userId: number) {
  const removed = await trx
    .deleteFrom('forum_votes')
    .where('message_id', '=', messageId)
    .where('user_id', '=', userId)
    .returning('vote')
    .executeTakeFirst();
  if (removed) {
    const column = counterOf(removed.vote);
    return trx
      .updateTable('forum_messages')
      .set((eb) => ({ [column]: eb(column, '-', 1) }))
      .where('id', '=', messageId)
      .returning(['likes_count', 'dislikes_count'])
      .executeTakeFirstOrThrow();
  }
  return trx.selectFrom('forum_messages').select(['likes_count', 'dislikes_count']).where('id', '=', messageId).executeTakeFirstOrThrow();
}

export async function currentVote(db: Db, messageId: number, userId: number): Promise<VoteKind | undefined> {
  const row = await db
    .selectFrom('forum_votes')
    .select('vote')
    .where('message_id', '=', messageId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.vote;
}

/** Adds or removes the user's like of a topic; the counter moves only when the like row did (call inside a transaction). */
export async function setTopicLike(trx: Db, topicId: number, userId: number, liked: boolean): Promise<number> {
  const changed = liked
    ? await trx
        .insertInto('forum_topic_likes')
        .values({ topic_id: topicId, user_id: userId })
        .onConflict((oc) => oc.columns(['topic_id', 'user_id']).doNothing())
        .returning('topic_id')
        .executeTakeFirst()
    : await trx
        .deleteFrom('forum_topic_likes')
        .where('topic_id', '=', topicId)
        .where('user_id', '=', userId)
        .returning('topic_id')
        .executeTakeFirst();
  if (changed) {
    const row = await trx
      .updateTable('forum_topics')
      .set((eb) => ({ likes_count: eb('likes_count', liked ? '+' : '-', 1) }))
      .where('id', '=', topicId)
      .returning('likes_count')
      .executeTakeFirstOrThrow();
    return row.likes_count;
  }
  const row = await trx.selectFrom('forum_topics').select('likes_count').where('id', '=', topicId).executeTakeFirstOrThrow();
  return row.likes_count;
}

function subscriptionsQuery(db: Db) {
  return db
    .selectFrom('forum_subscriptions as s')
    .innerJoin('forum_topics as t', 't.id', 's.topic_id')
    .select(['t.id', 't.public_id', 't.title', 't.status', 't.messages_count', 't.last_message_at', 's.created_at as subscribed_at']);
}
export type SubscriptionRow = NonNullable<Awaited<ReturnType<ReturnType<typeof subscriptionsQuery>['executeTakeFirst']>>>;

/** Subscribes the user (idempotent: an existing subscription keeps its date) and returns it. */
export async function subscribe(db: Db, topicId: number, userId: number): Promise<SubscriptionRow> {
  await db
    .insertInto('forum_subscriptions')
    .values({ topic_id: topicId, user_id: userId })
    .onConflict((oc) => oc.columns(['topic_id', 'user_id']).doNothing())
    .execute();
  return subscriptionsQuery(db).where('s.topic_id', '=', topicId).where('s.user_id', '=', userId).executeTakeFirstOrThrow();
}

export async function unsubscribe(db: Db, topicId: number, userId: number): Promise<void> {
  await db.deleteFrom('forum_subscriptions').where('topic_id', '=', topicId).where('user_id', '=', userId).execute();
}

/** The user's subscriptions to visible topics, latest activity first (a query shape: compiled once). */
const subscriptionList = queryShape({ values: ['userId'] }, (db, p: { userId: number }) =>
  subscriptionsQuery(db)
    .where('s.user_id', '=', p.userId)
    .where('t.is_hidden', '=', false)
    .orderBy('t.last_message_at', 'desc')
    .orderBy('t.id', 'desc'),
);

export function listSubscriptions(db: Db, userId: number, page: number, limit: number) {
  return fetchPage(subscriptionList.with({ userId }), page, limit, db);
}

export function insertReport(db: Db, messageId: number, reporterId: number, reason: ReportReason, comment: string | null) {
  return db
    .insertInto('forum_reports')
    .values({ message_id: messageId, reporter_id: reporterId, reason, comment, status: 'PENDING' })
    .returning(['id', 'message_id', 'reason', 'status', 'created_at'])
    .executeTakeFirstOrThrow();
}

export async function existingReportId(db: Db, messageId: number, reporterId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('forum_reports')
    .select('id')
    .where('message_id', '=', messageId)
    .where('reporter_id', '=', reporterId)
    .executeTakeFirst();
  return row?.id;
}

const myReportsFrom = (db: Db) =>
  db
    .selectFrom('forum_reports as r')
    .innerJoin('forum_messages as m', 'm.id', 'r.message_id')
    .innerJoin('forum_topics as t', 't.id', 'm.topic_id')
    .select([
      'r.id',
      'r.message_id',
      't.id as topic_id',
      't.title as topic_title',
      'r.reason',
      'r.comment',
      'r.status',
      'r.created_at',
      'r.resolved_at',
    ]);

/** The query parameters of a user's report list, as the contract declares them. */
export type MyReportListParameters = NonNullable<operations['listMyForumReports']['parameters']['query']>;

/**
 * Each filter of a user's report list, declared once (lib/filter-spec.ts). Typed from the contract:
 * a query parameter of `listMyForumReports` with no entry here (and not a paging one) is a type error.
 */
export const MY_REPORT_FILTERS: FilterSpecs<MyReportListParameters, WhereOf<ReturnType<typeof myReportsFrom>>> = {
  status: { bind: same, where: (eb, v) => eb('r.status', '=', v as ReportStatus), columns: ['r.status'] },
};
const MY_REPORT_FILTER = filters(MY_REPORT_FILTERS);

/** The reports a user filed, newest first, optionally of one status (a query shape: compiled once per filter set). */
const reportList = queryShape(
  { values: ['reporterId', ...MY_REPORT_FILTER.values], structure: MY_REPORT_FILTER.structure },
  (db, p: BoundFilters<MyReportListParameters> & { reporterId: number }) =>
    MY_REPORT_FILTER.apply(myReportsFrom(db).where('r.reporter_id', '=', p.reporterId), p)
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc'),
);

export function listReports(db: Db, reporterId: number, f: MyReportListParameters, page: number, limit: number) {
  return fetchPage(reportList.with(MY_REPORT_FILTER.bind(f, { reporterId })), page, limit, db);
}

/** Active FORUM categories with their visible topics and those topics' visible messages. */
export function forumCategories(db: Db) {
  return db
    .selectFrom('categories as c')
    .select([
      'c.id',
      'c.name',
      'c.description',
      'c.color',
      'c.icon',
      sql<number>`(select count(*) from forum_topics t where t.category_id = c.id and not t.is_hidden)`.as('topics_count'),
      sql<number>`(select count(*) from forum_messages m join forum_topics t on t.id = m.topic_id
        where t.category_id = c.id and not t.is_hidden and m.deleted_at is null and not m.is_hidden)`.as('messages_count'),
    ])
    .where('c.scope', '=', 'FORUM')
    .where('c.is_active', '=', true);
}
export type CategoryRow = NonNullable<Awaited<ReturnType<ReturnType<typeof forumCategories>['executeTakeFirst']>>>;

const activeTags = (db: Db) =>
  db
    .selectFrom('tags as tg')
    .select(['tg.id', 'tg.name', 'tg.color'])
    // Visible topics carrying the tag: a counter the database keeps (migrations 0009 and 0016).
    .select(liveCount('tags.visible_topics_count', 'tg').as('usage_count'))
    .where('tg.is_active', '=', true);

/** The query parameters of the tag lookup, as the contract declares them. */
export type TagListParameters = NonNullable<operations['listForumTags']['parameters']['query']>;

/**
 * Each filter of the tag lookup, declared once (lib/filter-spec.ts). Typed from the contract: a
 * query parameter of `listForumTags` with no entry here (and not a paging one) is a type error.
 */
export const TAG_FILTERS: FilterSpecs<TagListParameters, WhereOf<ReturnType<typeof activeTags>>> = {
  search: { bind: containing, where: (eb, v) => eb('tg.name', 'ilike', v as string), columns: ['tg.name'], text: true },
};
const TAG_FILTER = filters(TAG_FILTERS);

/** Active tags, most used on visible forum topics first, then by name (a query shape: compiled once per filter set). */
const tagList = queryShape(
  { values: [...TAG_FILTER.values, 'limit'], structure: TAG_FILTER.structure },
  (db, p: BoundFilters<TagListParameters> & { limit: number }) =>
    TAG_FILTER.apply(activeTags(db), p).orderBy('usage_count', 'desc').orderBy('tg.name').orderBy('tg.id').limit(p.limit),
);

export function forumTags(db: Db, f: TagListParameters, limit: number) {
  return tagList.execute(db, TAG_FILTER.bind(f, { limit }));
}
