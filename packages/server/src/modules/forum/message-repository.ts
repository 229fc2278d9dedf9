import type { operations } from '@transport-ops/contract';
import { sql, type Kysely, type SqlBool } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { queryShape } from '../../lib/query-shape.js';
import type { Database, VoteKind } from '../../db/schema.js';
import { messageNotFound } from './rules.js';

type Db = Kysely<Database>;

/**
 * A message is shown when it is visible (not deleted, not hidden) or has a shown reply, i.e. a
 * visible descendant, in which case it is shown as a placeholder. `replies_count` counts a message's
 * shown direct replies and is kept by every write that changes what is shown (posting, deleting,
 * moderation; recounted by migration 0016), so this is a test on the row's own columns: a message is
 * read in the same work whatever the size of its topic.
 */
export const isShown = sql<SqlBool>`((m.deleted_at is null and not m.is_hidden) or m.replies_count > 0)`;

/**
 * The messages of a topic that the user side shows, in thread order: every visible message plus
 * every ancestor of one (isShown). `shown_replies` counts the shown direct replies. Hidden topics are excluded.
 */
export function shownMessages(db: Db, topicId: number, userId: number) {
  return db
    .selectFrom('forum_messages as m')
    .innerJoin('forum_topics as t', 't.id', 'm.topic_id')
    .innerJoin('users as u', 'u.id', 'm.author_id')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .where('m.topic_id', '=', topicId)
    .where(isShown)
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
      'm.replies_count as shown_replies',
    ])
    .select((eb) => [
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

/** The query parameters of a topic's message list, as the contract declares them. */
export type MessageListParameters = NonNullable<operations['listTopicMessages']['parameters']['query']>;

/**
 * Each filter of a topic's message list, declared once (lib/filter-spec.ts). Typed from the
 * contract: a query parameter of `listTopicMessages` with no entry here (and not a paging one) is a
 * type error.
 */
export const MESSAGE_FILTERS: FilterSpecs<MessageListParameters, WhereOf<ReturnType<typeof shownMessages>>> = {
  parentId: { bind: same, where: (eb, v) => eb('m.parent_id', '=', v as number), columns: ['m.parent_id'] },
};
const MESSAGE_FILTER = filters(MESSAGE_FILTERS);

type ShownParams = BoundFilters<MessageListParameters> & { topicId: number; userId: number; id: number | undefined };

/** `shownMessages`, with a parent or one message, as a query shape (lib/query-shape.ts): compiled once per filter. */
const shownList = queryShape(
  { values: ['topicId', 'userId', ...MESSAGE_FILTER.values, 'id'], structure: MESSAGE_FILTER.structure },
  (db, p: ShownParams) => {
    const query = MESSAGE_FILTER.apply(shownMessages(db, p.topicId, p.userId), p);
    return p.id === undefined ? query : query.where('m.id', '=', p.id);
  },
);

/** The shown messages of a topic that pass the filters (`parentId`: the replies to a message), for a list helper. */
export const shownMessagesOf = (topicId: number, userId: number, f: MessageListParameters) =>
  shownList.with(MESSAGE_FILTER.bind(f, { topicId, userId, id: undefined }));

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
 * Soft-deletes a message (call inside a transaction, the topic and the message locked). Without
 * shown replies it leaves the tree, so its parent loses a reply; a deleted or hidden parent left
 * without shown replies leaves the tree in turn, up the chain (only as far as something changes).
 */
export async function softDeleteMessage(trx: Db, message: MessageState): Promise<void> {
  const now = new Date();
  const keepsPlaceholder = message.replies_count > 0;
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
    const vanished = (parent.deleted_at !== null || parent.is_hidden) && parent.replies_count === 0;
    parentId = vanished ? parent.parent_id : null;
  }
}

export async function updateMessageContent(trx: Db, id: number, content: string): Promise<void> {
  await trx.updateTable('forum_messages').set({ content, updated_at: new Date() }).where('id', '=', id).execute();
}
