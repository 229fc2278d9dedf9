import { sql, type Kysely } from 'kysely';
import { queryShape } from '../../lib/query-shape.js';
import type { Database, VoteKind } from '../../db/schema.js';
import { messageNotFound } from './rules.js';

type Db = Kysely<Database>;

/**
 * The messages of a topic that the user side shows, in thread order: every visible message (not
 * deleted, not hidden) plus every ancestor of one, which is shown as a placeholder when it is itself
 * deleted or hidden. `shown_replies` counts the shown direct replies. Hidden topics are excluded.
 */
export function shownMessages(db: Db, topicId: number, userId: number) {
  return db
    .withRecursive('shown(id, parent_id)', (qb) =>
      qb
        .selectFrom('forum_messages as v')
        .select(['v.id', 'v.parent_id'])
        .where('v.topic_id', '=', topicId)
        .where('v.deleted_at', 'is', null)
        .where('v.is_hidden', '=', false)
        .union((eb) => eb.selectFrom('forum_messages as p').innerJoin('shown as s', 's.parent_id', 'p.id').select(['p.id', 'p.parent_id'])),
    )
    .selectFrom('shown as sh')
    .innerJoin('forum_messages as m', 'm.id', 'sh.id')
    .innerJoin('forum_topics as t', 't.id', 'm.topic_id')
    .innerJoin('users as u', 'u.id', 'm.author_id')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .where('t.is_hidden', '=', false)
    .select([
      'm.id',
      'm.topic_id',
      't.title as topic_title',
      'm.parent_id',
      'm.content',
      'm.is_main_message',
      'm.likes_count',
      'm.dislikes_count',
      'm.is_hidden',
      'm.deleted_at',
      'm.created_at',
      'm.updated_at',
      'm.author_id',
      sql<string>`coalesce(a.first_name, u.username)`.as('author_first_name'),
      sql<string>`coalesce(a.last_name, '')`.as('author_last_name'),
      'u.avatar_updated_at as author_avatar_at',
    ])
    .select((eb) => [
      eb.selectFrom('shown as r').whereRef('r.parent_id', '=', 'm.id').select(eb.fn.countAll<number>().as('n')).as('shown_replies'),
      eb
        .selectFrom('forum_votes as fv')
        .whereRef('fv.message_id', '=', 'm.id')
        .where('fv.user_id', '=', userId)
        .select('fv.vote')
        .$castTo<VoteKind | null>()
        .as('user_vote'),
    ])
    .orderBy('m.is_main_message', 'desc')
    .orderBy('m.created_at')
    .orderBy('m.id');
}
export type MessageRow = Awaited<ReturnType<ReturnType<typeof shownMessages>['execute']>>[number];

interface ShownParams {
  topicId: number;
  userId: number;
  parentId: number | undefined;
  id: number | undefined;
}

/** `shownMessages`, with a parent or one message, as a query shape (lib/query-shape.ts): compiled once per filter. */
const shownList = queryShape({ values: ['topicId', 'userId', 'parentId', 'id'] }, (db, p: ShownParams) => {
  let query = shownMessages(db, p.topicId, p.userId);
  if (p.parentId !== undefined) query = query.where('m.parent_id', '=', p.parentId);
  if (p.id !== undefined) query = query.where('m.id', '=', p.id);
  return query;
});

/** The shown messages of a topic (the replies to `parentId` when given), for a list helper. */
export const shownMessagesOf = (topicId: number, userId: number, parentId?: number) =>
  shownList.with({ topicId, userId, parentId, id: undefined });

/** Every shown message of a topic, in reading order. */
export const allShownMessages = (db: Db, topicId: number, userId: number) =>
  shownList.execute(db, { topicId, userId, parentId: undefined, id: undefined });

/** One shown message of a topic, or undefined. */
export const shownMessageIn = (db: Db, topicId: number, id: number, userId: number): Promise<MessageRow | undefined> =>
  shownList.executeTakeFirst(db, { topicId, userId, parentId: undefined, id }) as Promise<MessageRow | undefined>;

/** One shown message (visible or placeholder), or undefined. */
export async function findShownMessage(db: Db, id: number, userId: number): Promise<MessageRow | undefined> {
  const message = await db.selectFrom('forum_messages').select('topic_id').where('id', '=', id).executeTakeFirst();
  if (!message) return undefined;
  return shownMessageIn(db, message.topic_id, id, userId);
}

/** The columns the write rules look at, joined with the topic's state. */
function messageState(db: Db) {
  return db
    .selectFrom('forum_messages as m')
    .innerJoin('forum_topics as t', 't.id', 'm.topic_id')
    .select([
      'm.id',
      'm.topic_id',
      'm.parent_id',
      'm.author_id',
      'm.is_main_message',
      'm.is_hidden',
      'm.deleted_at',
      'm.replies_count',
      't.status as topic_status',
      't.is_hidden as topic_hidden',
    ]);
}
export type MessageState = NonNullable<Awaited<ReturnType<ReturnType<typeof messageState>['executeTakeFirst']>>>;

const isVisible = (m: MessageState) => m.deleted_at === null && !m.is_hidden && !m.topic_hidden;

/** A visible message (not deleted, not hidden, in a visible topic), or MESSAGE_NOT_FOUND. */
export async function visibleMessage(db: Db, id: number): Promise<MessageState> {
  const message = await messageState(db).where('m.id', '=', id).executeTakeFirst();
  if (!message || !isVisible(message)) throw messageNotFound(id);
  return message;
}

/** A message row locked for the rest of the transaction, when it exists and is visible. */
export async function lockMessageIfVisible(trx: Db, id: number): Promise<MessageState | undefined> {
  const message = await messageState(trx).where('m.id', '=', id).forUpdate('m').executeTakeFirst();
  return message && isVisible(message) ? message : undefined;
}

/**
 * Same as `visibleMessage`, with its topic's row and then its own row locked for the rest of the
 * transaction. Every write on a topic's messages locks the topic first (as posting does), so
 * that a reply and a delete of its parent queue up instead of deadlocking.
 */
export async function lockVisibleMessage(trx: Db, id: number): Promise<MessageState> {
  await trx
    .selectFrom('forum_topics')
    .select('id')
    .where('id', '=', (eb) => eb.selectFrom('forum_messages').select('topic_id').where('id', '=', id))
    .forUpdate()
    .execute();
  const message = await lockMessageIfVisible(trx, id);
  if (!message) throw messageNotFound(id);
  return message;
}

export interface NewMessage {
  topicId: number;
  parentId: number | null;
  authorId: number;
  content: string;
}

/** Inserts a message and moves the topic's and the parent's counters (call inside a transaction). */
export async function insertMessage(trx: Db, message: NewMessage): Promise<number> {
  const now = new Date();
  const { id } = await trx
    .insertInto('forum_messages')
    .values({
      topic_id: message.topicId,
      parent_id: message.parentId,
      author_id: message.authorId,
      content: message.content,
      is_main_message: false,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('forum_topics')
    .set((eb) => ({ messages_count: eb('messages_count', '+', 1), last_message_at: now }))
    .where('id', '=', message.topicId)
    .execute();
  if (message.parentId !== null) {
    await trx
      .updateTable('forum_messages')
      .set((eb) => ({ replies_count: eb('replies_count', '+', 1) }))
      .where('id', '=', message.parentId)
      .execute();
  }
  return id;
}

/**
 * True when a descendant of the message is visible (not deleted, not hidden), `exceptId` left out:
 * a deleted or hidden message with such a descendant stays in the user-side tree as a placeholder.
 */
export async function hasShownReplies(db: Db, id: number, exceptId?: number): Promise<boolean> {
  const row = await db
    .withRecursive('descendants(id, deleted_at, is_hidden)', (qb) =>
      qb
        .selectFrom('forum_messages as c')
        .select(['c.id', 'c.deleted_at', 'c.is_hidden'])
        .where('c.parent_id', '=', id)
        .unionAll((eb) =>
          eb
            .selectFrom('forum_messages as c')
            .innerJoin('descendants as d', 'd.id', 'c.parent_id')
            .select(['c.id', 'c.deleted_at', 'c.is_hidden']),
        ),
    )
    .selectFrom('descendants')
    .select('id')
    .where('deleted_at', 'is', null)
    .where('is_hidden', '=', false)
    .$if(exceptId !== undefined, (qb) => qb.where('id', '<>', exceptId!))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Soft-deletes a message (call inside a transaction, the message locked). Without shown replies
 * it leaves the tree, so its parent loses a reply; a deleted or hidden parent left without shown
 * replies leaves the tree in turn, up the chain.
 */
export async function softDeleteMessage(trx: Db, message: MessageState): Promise<void> {
  const now = new Date();
  const keepsPlaceholder = await hasShownReplies(trx, message.id);
  await trx.updateTable('forum_messages').set({ deleted_at: now, updated_at: now }).where('id', '=', message.id).execute();
  await trx
    .updateTable('forum_topics')
    .set((eb) => ({ messages_count: eb('messages_count', '-', 1) }))
    .where('id', '=', message.topic_id)
    .execute();
  if (keepsPlaceholder) return;
  let parentId = message.parent_id;
  while (parentId !== null) {
    const parent = await trx
      .updateTable('forum_messages')
      .set({ replies_count: sql<number>`greatest(replies_count - 1, 0)` })
      .where('id', '=', parentId)
      .returning(['parent_id', 'replies_count', 'deleted_at', 'is_hidden'])
      .executeTakeFirstOrThrow();
    const vanished = (parent.deleted_at !== null || parent.is_hidden) && !(await hasShownReplies(trx, parentId));
    parentId = vanished ? parent.parent_id : null;
  }
}

export async function updateMessageContent(trx: Db, id: number, content: string): Promise<void> {
  await trx.updateTable('forum_messages').set({ content, updated_at: new Date() }).where('id', '=', id).execute();
}
