import type { Kysely } from 'kysely';
import type { Database, ReportReason, TopicStatus } from '../../../src/db/schema.js';
import type { DemoUser } from '../../support/app.js';

/*
 * Forum records written straight into the test database, with the counters the user-side
 * operations keep (a topic's main message counts as one message; a reply counts for its parent).
 */

export async function userId(db: Kysely<Database>, username: DemoUser): Promise<number> {
  const row = await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
  return row.id;
}

export async function createTopic(
  db: Kysely<Database>,
  authorId: number,
  options: { title?: string; status?: TopicStatus; categoryId?: number | null } = {},
): Promise<{ topicId: number; mainId: number }> {
  const title = options.title ?? `Topic ${Math.random().toString(36).slice(2, 8)}`;
  const content = `Main message of ${title}`;
  const topic = await db
    .insertInto('forum_topics')
    .values({
      title,
      content,
      status: options.status ?? 'ACTIVE',
      author_id: authorId,
      category_id: options.categoryId ?? null,
      messages_count: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const main = await db
    .insertInto('forum_messages')
    .values({ topic_id: topic.id, author_id: authorId, content, is_main_message: true })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { topicId: topic.id, mainId: main.id };
}

export async function addMessage(
  db: Kysely<Database>,
  topicId: number,
  authorId: number,
  options: { parentId?: number | null; content?: string; createdAt?: Date } = {},
): Promise<number> {
  const row = await db
    .insertInto('forum_messages')
    .values({
      topic_id: topicId,
      author_id: authorId,
      parent_id: options.parentId ?? null,
      content: options.content ?? 'A reply in the thread',
      ...(options.createdAt ? { created_at: options.createdAt, updated_at: options.createdAt } : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .updateTable('forum_topics')
    .set((eb) => ({ messages_count: eb('messages_count', '+', 1) }))
    .where('id', '=', topicId)
    .execute();
  if (options.parentId) {
    await db
      .updateTable('forum_messages')
      .set((eb) => ({ replies_count: eb('replies_count', '+', 1) }))
      .where('id', '=', options.parentId)
      .execute();
  }
  return row.id;
}

/** Marks a message deleted and drops its topic's message count; returns the message's parent id. */
async function softDelete(db: Kysely<Database>, messageId: number): Promise<number | null> {
  const row = await db
    .updateTable('forum_messages')
    .set({ deleted_at: new Date() })
    .where('id', '=', messageId)
    .returning(['topic_id', 'parent_id'])
    .executeTakeFirstOrThrow();
  await db
    .updateTable('forum_topics')
    .set((eb) => ({ messages_count: eb('messages_count', '-', 1) }))
    .where('id', '=', row.topic_id)
    .execute();
  return row.parent_id;
}

/** Soft-deletes a message as the user side does (no replies: it leaves the counts). */
export async function deleteMessage(db: Kysely<Database>, messageId: number): Promise<void> {
  const parentId = await softDelete(db, messageId);
  if (parentId !== null) {
    await db
      .updateTable('forum_messages')
      .set((eb) => ({ replies_count: eb('replies_count', '-', 1) }))
      .where('id', '=', parentId)
      .execute();
  }
}

/** Soft-deletes a message that has visible replies: it stays in the tree as a placeholder, so only the topic count drops. */
export async function deleteAsPlaceholder(db: Kysely<Database>, messageId: number): Promise<void> {
  await softDelete(db, messageId);
}

export async function report(
  db: Kysely<Database>,
  messageId: number,
  reporterId: number,
  options: { reason?: ReportReason; comment?: string | null; createdAt?: Date } = {},
): Promise<number> {
  const row = await db
    .insertInto('forum_reports')
    .values({
      message_id: messageId,
      reporter_id: reporterId,
      reason: options.reason ?? 'SPAM',
      comment: options.comment ?? null,
      ...(options.createdAt ? { created_at: options.createdAt } : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export const topicRow = (db: Kysely<Database>, id: number) =>
  db.selectFrom('forum_topics').select(['status', 'is_hidden', 'messages_count']).where('id', '=', id).executeTakeFirstOrThrow();

export const messageRow = (db: Kysely<Database>, id: number) =>
  db.selectFrom('forum_messages').select(['is_hidden', 'replies_count', 'deleted_at']).where('id', '=', id).executeTakeFirstOrThrow();
