import { type Kysely, sql } from 'kysely';
import type { Database, ForumMessage, ForumTopic, TopicStatus } from '../../db/schema.js';
import { statusMove, type TopicAction } from './rules.js';

type Db = Kysely<Database>;

export type TopicState = Pick<ForumTopic, 'id' | 'status' | 'is_hidden'>;

/**
 * Applies a moderation action; the status guard sits in the UPDATE's WHERE, so of two concurrent
 * moderators only one moves the topic. Undefined when the topic is unknown or the action is not
 * offered in its current status.
 */
export async function moderateTopic(db: Db, id: number, action: TopicAction): Promise<TopicState | undefined> {
  if (action === 'HIDE' || action === 'UNHIDE') {
    return setTopicHidden(db, id, action === 'HIDE');
  }
  const { from, to } = statusMove(action);
  return db
    .updateTable('forum_topics')
    .set({ status: to, updated_at: new Date() })
    .where('id', '=', id)
    .where('status', 'in', from)
    .returning(['id', 'status', 'is_hidden'])
    .executeTakeFirst();
}

export async function setTopicHidden(db: Db, id: number, hidden: boolean): Promise<TopicState | undefined> {
  return db
    .updateTable('forum_topics')
    .set({ is_hidden: hidden, updated_at: new Date() })
    .where('id', '=', id)
    .returning(['id', 'status', 'is_hidden'])
    .executeTakeFirst();
}

/** The topic's moderation state, its row locked until the transaction ends (what an audit entry's `before` reads). */
export async function lockTopicState(trx: Db, id: number): Promise<TopicState | undefined> {
  return trx.selectFrom('forum_topics').select(['id', 'status', 'is_hidden']).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function topicStatus(db: Db, id: number): Promise<TopicStatus | undefined> {
  const row = await db.selectFrom('forum_topics').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}

export type MessageState = Pick<ForumMessage, 'id' | 'topic_id' | 'is_main_message' | 'is_hidden' | 'deleted_at'>;

export async function findMessage(db: Db, id: number): Promise<MessageState | undefined> {
  return db
    .selectFrom('forum_messages')
    .select(['id', 'topic_id', 'is_main_message', 'is_hidden', 'deleted_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Moves a message's `replies_count` by one and returns what decides whether the walk goes on. */
async function shiftReplies(trx: Db, id: number, delta: 1 | -1) {
  return trx
    .updateTable('forum_messages')
    .set({ replies_count: sql<number>`greatest(replies_count + ${delta}, 0)` })
    .where('id', '=', id)
    .returning(['id', 'parent_id', 'deleted_at', 'is_hidden', 'replies_count'])
    .executeTakeFirstOrThrow();
}

/**
 * Hides or shows a message that is not deleted; the main message stands for its topic, so it hides
 * or shows the whole topic. Returns the resulting visibility (the topic's for the main message).
 *
 * Counters follow the user-side tree, as for a deleted message: the topic's `messages_count` counts
 * visible messages; a message's `replies_count` counts its shown direct replies (visible ones and
 * placeholders, i.e. deleted or hidden ones with a visible descendant). Hiding a message without
 * visible descendants takes it out of the tree, and with it every deleted or hidden ancestor left
 * without one; showing it again puts that chain back. Only the UPDATE that really flips `is_hidden`
 * moves the counters, so repeated or concurrent identical actions change them once. A message's
 * `updated_at` is its last edit (contract): moderation and counters leave it alone.
 */
export async function setMessageHidden(trx: Db, message: MessageState, hidden: boolean): Promise<boolean> {
  if (message.is_main_message) {
    const topic = await setTopicHidden(trx, message.topic_id, hidden);
    return topic?.is_hidden ?? hidden;
  }
  // Lock order of every forum write: the topic row first, then its messages (no deadlock with
  // a user deleting or posting in the same topic).
  await trx.selectFrom('forum_topics').select('id').where('id', '=', message.topic_id).forUpdate().execute();
  const flipped = await trx
    .updateTable('forum_messages')
    .set({ is_hidden: hidden })
    .where('id', '=', message.id)
    .where('is_hidden', '=', !hidden)
    .where('deleted_at', 'is', null)
    .returning(['topic_id', 'parent_id', 'replies_count'])
    .executeTakeFirst();
  if (!flipped) return hidden;
  await trx
    .updateTable('forum_topics')
    .set((eb) => ({ messages_count: eb('messages_count', hidden ? '-' : '+', 1) }))
    .where('id', '=', flipped.topic_id)
    .execute();
  // With shown replies the message was, and stays, in the tree (as itself or a placeholder).
  if (flipped.replies_count > 0) return hidden;
  let parentId = flipped.parent_id;
  while (parentId !== null) {
    const parent = await shiftReplies(trx, parentId, hidden ? -1 : 1);
    if (parent.deleted_at === null && !parent.is_hidden) break;
    // A deleted or hidden parent is in the tree only through its shown replies: it leaves with its
    // last one (hide) or arrives with its first (show), and then its own parent changes too.
    if (parent.replies_count !== (hidden ? 0 : 1)) break;
    parentId = parent.parent_id;
  }
  return hidden;
}

/** "First Last" of a staff user's actor, the username when the user has no actor. */
export async function staffName(db: Db, userId: number): Promise<string> {
  const row = await db
    .selectFrom('users as u')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .select(sql<string>`coalesce(nullif(trim(concat_ws(' ', a.first_name, a.last_name)), ''), u.username)`.as('name'))
    .where('u.id', '=', userId)
    .executeTakeFirst();
  return row?.name ?? `User ${userId}`;
}
