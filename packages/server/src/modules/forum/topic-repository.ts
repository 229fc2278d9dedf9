import { firstViewToday } from '../../lib/views.js';
import { sql, type Kysely } from 'kysely';
import type { Database, TopicStatus } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import { DEFAULT_COLOR } from './mappers.js';
import { topicNotFound } from './rules.js';
import { queryShape } from '../../lib/query-shape.js';

type Db = Kysely<Database>;

/** A topic with its author and category, the columns every topic shape needs. */
export function topicsQuery(db: Db) {
  return db
    .selectFrom('forum_topics as t')
    .innerJoin('users as u', 'u.id', 't.author_id')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .leftJoin('categories as c', 'c.id', 't.category_id')
    .select([
      't.id',
      't.public_id',
      't.title',
      't.description',
      't.content',
      't.status',
      't.views_count',
      't.messages_count',
      't.likes_count',
      't.last_message_at',
      't.created_at',
      't.updated_at',
      't.author_id',
      'c.id as category_id',
      'c.name as category_name',
      'c.description as category_description',
      sql<string>`coalesce(a.first_name, u.username)`.as('author_first_name'),
      sql<string>`coalesce(a.last_name, '')`.as('author_last_name'),
      'u.avatar_updated_at as author_avatar_at',
    ]);
}

/** A topic as `ForumTopic` shows it to `userId` (like and subscription flags). */
export function topicsForViewer(db: Db, userId: number) {
  return topicsQuery(db).select((eb) => [
    eb
      .exists(
        eb.selectFrom('forum_topic_likes as l').select('l.topic_id').whereRef('l.topic_id', '=', 't.id').where('l.user_id', '=', userId),
      )
      .as('user_liked'),
    eb
      .exists(
        eb.selectFrom('forum_subscriptions as s').select('s.topic_id').whereRef('s.topic_id', '=', 't.id').where('s.user_id', '=', userId),
      )
      .as('is_subscribed'),
  ]);
}
export type TopicRow = NonNullable<Awaited<ReturnType<ReturnType<typeof topicsForViewer>['executeTakeFirst']>>>;

export const findTopic = (db: Db, id: number, userId: number) => topicsForViewer(db, userId).where('t.id', '=', id).executeTakeFirst();

export interface TagRefRow {
  topic_id: number;
  id: number;
  name: string;
  color: string;
}

const tagsOfTopics = queryShape({ values: ['topicIds'] }, (db, p: { topicIds: number[] }) =>
  db
    .selectFrom('forum_topic_tags as tt')
    .innerJoin('tags as tg', 'tg.id', 'tt.tag_id')
    .select(['tt.topic_id', 'tg.id', 'tg.name', sql<string>`coalesce(tg.color, ${DEFAULT_COLOR})`.as('color')])
    .where('tt.topic_id', '=', sql<number>`any(${p.topicIds})`)
    .orderBy('tg.name')
    .orderBy('tg.id'),
);

/** The tags of some topics, by topic id (one query for a whole page). */
export async function topicTags(db: Db, topicIds: number[]): Promise<Map<number, TagRefRow[]>> {
  const byTopic = new Map<number, TagRefRow[]>(topicIds.map((id) => [id, []]));
  if (topicIds.length === 0) return byTopic;
  const rows = await tagsOfTopics.execute(db, { topicIds });
  for (const row of rows) byTopic.get(row.topic_id)?.push(row);
  return byTopic;
}

/** The state a write needs, row-locked for the rest of the transaction. */
export function lockTopic(trx: Db, id: number) {
  return trx
    .selectFrom('forum_topics')
    .select(['id', 'title', 'author_id', 'status', 'is_hidden'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Messages, votes, reports, tags, likes and subscriptions go with the topic (ON DELETE CASCADE). */
export async function deleteTopic(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('forum_topics').where('id', '=', id).execute();
}

/** A visible (not hidden) topic, or TOPIC_NOT_FOUND. */
export async function visibleTopic(db: Db, id: number): Promise<{ id: number; status: TopicStatus }> {
  const topic = await db
    .selectFrom('forum_topics')
    .select(['id', 'status'])
    .where('id', '=', id)
    .where('is_hidden', '=', false)
    .executeTakeFirst();
  if (!topic) throw topicNotFound(id);
  return topic;
}

/** CATEGORY_NOT_FOUND unless the id is an active FORUM category. */
export async function assertForumCategory(db: Db, categoryId: number): Promise<void> {
  const found = await db
    .selectFrom('categories')
    .select('id')
    .where('id', '=', categoryId)
    .where('scope', '=', 'FORUM')
    .where('is_active', '=', true)
    .executeTakeFirst();
  if (!found) throw new AppError('CATEGORY_NOT_FOUND', { categoryId }, 'Category not found');
}

/** TAG_NOT_FOUND with every id that is not an active tag. */
export async function assertActiveTags(db: Db, tagIds: number[]): Promise<void> {
  if (tagIds.length === 0) return;
  const found = await db.selectFrom('tags').select('id').where('id', 'in', tagIds).where('is_active', '=', true).execute();
  const known = new Set(found.map((t) => t.id));
  const missing = tagIds.filter((id) => !known.has(id));
  if (missing.length > 0) throw new AppError('TAG_NOT_FOUND', { tagIds: missing }, 'Tag not found');
}

export async function replaceTopicTags(trx: Db, topicId: number, tagIds: number[]): Promise<void> {
  await trx.deleteFrom('forum_topic_tags').where('topic_id', '=', topicId).execute();
  if (tagIds.length > 0) {
    await trx
      .insertInto('forum_topic_tags')
      .values(tagIds.map((tag_id) => ({ topic_id: topicId, tag_id })))
      .execute();
  }
}

export interface NewTopic {
  title: string;
  description: string;
  content: string;
  categoryId: number | null;
  tagIds: number[];
  authorId: number;
}

/** The topic, its main message, its tags and the author's subscription (call inside a transaction). */
export async function insertTopic(trx: Db, topic: NewTopic): Promise<number> {
  const now = new Date();
  const { id } = await trx
    .insertInto('forum_topics')
    .values({
      title: topic.title,
      description: topic.description,
      content: topic.content,
      status: 'ACTIVE',
      category_id: topic.categoryId,
      author_id: topic.authorId,
      views_count: 0,
      messages_count: 1,
      likes_count: 0,
      last_message_at: now,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('forum_messages')
    .values({
      topic_id: id,
      parent_id: null,
      author_id: topic.authorId,
      content: topic.content,
      is_main_message: true,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await replaceTopicTags(trx, id, topic.tagIds);
  await trx.insertInto('forum_subscriptions').values({ topic_id: id, user_id: topic.authorId, created_at: now }).execute();
  return id;
}

export interface TopicChanges {
  title?: string;
  description?: string;
  content?: string;
  categoryId?: number | null;
  tagIds?: number[];
}

export async function updateTopic(trx: Db, id: number, changes: TopicChanges): Promise<void> {
  const now = new Date();
  await trx
    .updateTable('forum_topics')
    .set(
      Object.assign(
        {},
        changes.title !== undefined ? { title: changes.title } : {},
        changes.description !== undefined ? { description: changes.description } : {},
        changes.content !== undefined ? { content: changes.content } : {},
        changes.categoryId !== undefined ? { category_id: changes.categoryId } : {},
        { updated_at: now },
      ),
    )
    .where('id', '=', id)
    .execute();
  if (changes.content !== undefined) {
    await trx
      .updateTable('forum_messages')
      .set({ content: changes.content, updated_at: now })
      .where('topic_id', '=', id)
      .where('is_main_message', '=', true)
      .execute();
  }
  if (changes.tagIds !== undefined) await replaceTopicTags(trx, id, changes.tagIds);
}

/** Counts a view of a visible topic, once per user per day (see firstViewToday); false when there is no such topic. */
export async function countView(db: Db, id: number, userId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const visible = await trx
      .selectFrom('forum_topics')
      .select('id')
      .where('id', '=', id)
      .where('is_hidden', '=', false)
      .executeTakeFirst();
    if (!visible) return false;
    if (await firstViewToday(trx, 'FORUM_TOPIC', id, userId)) {
      await trx
        .updateTable('forum_topics')
        .set((eb) => ({ views_count: eb('views_count', '+', 1) }))
        .where('id', '=', id)
        .execute();
    }
    return true;
  });
}
