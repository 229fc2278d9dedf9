import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers, Result } from '../../http/handlers.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { iso } from '../../lib/time.js';
import { hasGlobalView } from '../../lib/scope.js';
import { audit } from '../../lib/audit.js';
import { caller } from '../../lib/identity.js';
import { castVote, currentVote, existingReportId, insertReport, removeVote } from './interaction-repository.js';
import { emitEvent } from '../events/emit-repository.js';
import { toMessage } from './mappers.js';
import {
  findShownMessage,
  insertMessage,
  lockMessageIfVisible,
  lockVisibleMessage,
  shownMessagesOf,
  softDeleteMessage,
  updateMessageContent,
  visibleMessage,
  type MessageState,
} from './message-repository.js';
import { assertClean, trimmed } from './moderation.js';
import { mayChange, messageNotFound, notAuthor, topicClosed, topicNotFound } from './rules.js';
import { lockTopic } from './topic-repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

async function loadMessage(db: Kysely<Database>, id: number, userId: number): Promise<Result<'getForumMessageById'>> {
  const row = await findShownMessage(db, id, userId);
  if (!row) throw messageNotFound(id);
  return toMessage(row);
}

const mainMessage = (id: number) =>
  new AppError('NOT_EDITABLE', { resource: 'forum_message', id, status: 'MAIN_MESSAGE' }, 'The main message is changed through its topic');

type MessageOps =
  | 'createForumMessage'
  | 'getForumMessageById'
  | 'updateForumMessage'
  | 'deleteForumMessage'
  | 'listMessageReplies'
  | 'voteForumMessage'
  | 'reportForumMessage';

export const messageHandlers: ModuleHandlers<MessageOps> = {
  async createForumMessage(req) {
    const auth = caller(req);
    const { topicId } = req.body;
    const parentId = req.body.parentId ?? null;
    const content = trimmed('content', req.body.content, 3);
    assertClean({ content });
    const result = await req.server.db.transaction().execute(async (trx) => {
      // Locked so that closing the topic or deleting the parent cannot slip in between check and insert.
      const topic = await lockTopic(trx, topicId);
      if (!topic || topic.is_hidden) throw topicNotFound(topicId);
      if (topic.status !== 'ACTIVE') throw topicClosed(topicId, topic.status);
      if (parentId !== null) {
        const parent = await lockMessageIfVisible(trx, parentId);
        if (!parent || parent.topic_id !== topicId) throw messageNotFound(parentId);
      }
      const id = await insertMessage(trx, { topicId, parentId, authorId: auth.userId, content });
      return loadMessage(trx, id, auth.userId);
    });
    return { message: 'Message created successfully', result };
  },

  async getForumMessageById(req) {
    return { message: 'Message retrieved successfully', result: await messageRepresentations.getForumMessageById.read(req) };
  },

  async updateForumMessage(req) {
    const auth = caller(req);
    const id = req.params.id;
    const content = trimmed('content', req.body.content, 3);
    const result = await req.server.db.transaction().execute(async (trx) => {
      const message = await lockVisibleMessage(trx, id);
      if (!mayChange(auth, message.author_id)) throw notAuthor('message');
      if (message.is_main_message) throw mainMessage(id);
      if (message.topic_status !== 'ACTIVE') throw topicClosed(message.topic_id, message.topic_status);
      assertClean({ content });
      await updateMessageContent(trx, id, content);
      return loadMessage(trx, id, auth.userId);
    });
    return { message: 'Message updated successfully', result };
  },

  async deleteForumMessage(req) {
    const auth = caller(req);
    const id = req.params.id;
    await req.server.db.transaction().execute(async (trx) => {
      const message: MessageState = await lockVisibleMessage(trx, id);
      if (!mayChange(auth, message.author_id)) throw notAuthor('message');
      if (message.is_main_message) throw mainMessage(id);
      if (!hasGlobalView(auth) && message.topic_status !== 'ACTIVE') throw topicClosed(message.topic_id, message.topic_status);
      await softDeleteMessage(trx, message);
      // A moderator removing another user's message is a staff change; an author's own deletion is not audited.
      if (message.author_id !== auth.userId) {
        await audit(trx, req, {
          action: 'forum_message.deleted',
          resource: { type: 'forum_message', id },
          before: { isDeleted: false },
          after: { isDeleted: true },
          details: { topicId: message.topic_id, authorId: message.author_id },
        });
      }
    });
    return { message: 'Message deleted successfully', result: null };
  },

  async listMessageReplies(req) {
    const auth = caller(req);
    const { db } = req.server;
    const id = req.params.id;
    const page = req.query.page ?? 1;
    const limit = req.query.limit ?? 20;
    const parent = await findShownMessage(db, id, auth.userId);
    if (!parent) throw messageNotFound(id);
    const { rows, total } = await fetchPage(shownMessagesOf(parent.topic_id, auth.userId, { parentId: id }), page, limit, db);
    return { message: 'Replies retrieved successfully', result: { data: rows.map(toMessage), meta: pageMeta(total, page, limit) } };
  },

  async voteForumMessage(req) {
    const auth = caller(req);
    const { db } = req.server;
    const id = req.params.id;
    const { action } = req.body;
    const message = await visibleMessage(db, id);
    if (message.author_id === auth.userId) {
      throw new AppError('CANNOT_VOTE_OWN_MESSAGE', { messageId: id }, 'You cannot vote on your own message');
    }
    // biome-ignore lint/suspicious/noImplicitAnyLet: typed by its assignment in the try block (tsc checks every use)
    let counters;
    try {
      counters = await db
        .transaction()
        .execute((trx) => (action === 'REMOVE' ? removeVote(trx, id, auth.userId) : castVote(trx, id, auth.userId, action)));
    } catch (error) {
      if (action === 'REMOVE' || !isUniqueViolation(error, 'forum_votes_pkey')) throw error;
      const existing = (await currentVote(db, id, auth.userId)) ?? action;
      throw new AppError('VOTE_ALREADY_EXISTS', { messageId: id, currentVote: existing }, 'You already voted on this message');
    }
    return {
      message: action === 'REMOVE' ? 'Vote removed' : 'Vote recorded',
      result: {
        messageId: id,
        action,
        likesCount: counters.likes_count,
        dislikesCount: counters.dislikes_count,
        userVote: action === 'REMOVE' ? null : action,
      },
    };
  },

  async reportForumMessage(req) {
    const auth = caller(req);
    const { db } = req.server;
    const id = req.params.id;
    await visibleMessage(db, id);
    // biome-ignore lint/suspicious/noImplicitAnyLet: typed by its assignment in the try block (tsc checks every use)
    let report;
    try {
      report = await db.transaction().execute(async (trx) => {
        const row = await insertReport(trx, id, auth.userId, req.body.reason, req.body.comment?.trim() || null);
        await emitEvent(
          trx,
          'forum.message_reported',
          { type: 'forum_message', id },
          {
            reportId: row.id,
            messageId: row.message_id,
            reason: row.reason,
            status: row.status,
            createdAt: iso(row.created_at),
          },
        );
        return row;
      });
    } catch (error) {
      if (!isUniqueViolation(error, 'forum_reports_message_reporter_key')) throw error;
      const reportId = (await existingReportId(db, id, auth.userId)) ?? 0;
      throw new AppError('ALREADY_REPORTED', { messageId: id, reportId }, 'You already reported this message');
    }
    return {
      message: 'Message reported',
      result: {
        reportId: report.id,
        messageId: report.message_id,
        reason: report.reason,
        status: report.status,
        createdAt: iso(report.created_at),
      },
    };
  },
};

/** The message as its GET answers it (write-safety/representations.ts). */
export const messageRepresentations: ModuleRepresentations<'getForumMessageById'> = {
  getForumMessageById: {
    row: { table: 'forum_messages', id: (req) => req.params.id },
    async read(req) {
      return loadMessage(req.server.db, req.params.id, caller(req).userId);
    },
  },
};
