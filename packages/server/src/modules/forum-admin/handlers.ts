import { AppError, ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { pageMeta } from '../../lib/paging.js';
import { audit } from '../../lib/audit.js';
import { caller } from '../../lib/identity.js';
import { findMessage, lockTopicState, moderateTopic, setMessageHidden, staffName, topicStatus } from './moderation-repository.js';
import { allowedTopicActions } from './rules.js';
import { decideReport, findReport, listReports, reportStatus } from './report-repository.js';
import { forumStats } from './stats-repository.js';

const reportNotFound = (reportId: number) => new AppError('REPORT_NOT_FOUND', { reportId }, 'Report not found');
const topicNotFound = (topicId: number) => new AppError('TOPIC_NOT_FOUND', { topicId }, 'Topic not found');
const messageNotFound = (messageId: number) => new AppError('MESSAGE_NOT_FOUND', { messageId }, 'Message not found');

/** The audit log's verb of each topic action (`forum_topic.<verb>`). */
const TOPIC_VERBS = { CLOSE: 'closed', REOPEN: 'reopened', ARCHIVE: 'archived', HIDE: 'hidden', UNHIDE: 'unhidden' } as const;

const TOPIC_MESSAGES = {
  CLOSE: 'Topic closed',
  REOPEN: 'Topic reopened',
  ARCHIVE: 'Topic archived',
  HIDE: 'Topic hidden',
  UNHIDE: 'Topic unhidden',
};

export const forumAdminHandlers: ModuleHandlers<
  | 'listReportedMessages'
  | 'getReportedMessageById'
  | 'resolveReportedMessage'
  | 'moderateForumTopic'
  | 'moderateForumMessage'
  | 'getForumStats'
> = {
  async listReportedMessages(req) {
    const q = req.query;
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const { data, total } = await listReports(
      req.server.db,
      Object.assign({}, q, { page, limit, sortBy: q.sortBy ?? 'createdAt', sortOrder: q.sortOrder ?? 'DESC' }),
    );
    return { message: 'Reported messages retrieved successfully', result: { data, meta: pageMeta(total, page, limit) } };
  },

  async getReportedMessageById(req) {
    const report = await findReport(req.server.db, req.params.id);
    if (!report) throw reportNotFound(req.params.id);
    return { message: 'Reported message retrieved successfully', result: report };
  },

  async resolveReportedMessage(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { decision, comment, hideMessage = false } = req.body;
    if (hideMessage && decision === 'DISMISSED') {
      throw new ListError(400, 'Validation failed', ['body/hideMessage can be true only with decision RESOLVED']);
    }
    await db.transaction().execute(async (trx) => {
      const messageId = await decideReport(trx, id, { status: decision, comment: comment ?? null, resolvedBy: auth.userId });
      if (messageId === undefined) {
        const current = await reportStatus(trx, id);
        if (current === undefined) throw reportNotFound(id);
        throw new AppError(
          'INVALID_STATUS_TRANSITION',
          { currentStatus: current, requested: decision, allowed: [] },
          'Report has already been handled',
        );
      }
      let messageHidden = false;
      if (hideMessage) {
        const message = await findMessage(trx, messageId);
        // A deleted message is already off the user side: hiding it has no effect.
        if (message && message.deleted_at === null) messageHidden = await setMessageHidden(trx, message, true);
      }
      await audit(trx, req, {
        action: decision === 'RESOLVED' ? 'forum_report.resolved' : 'forum_report.dismissed',
        resource: { type: 'forum_report', id },
        before: { status: 'PENDING', comment: null },
        after: { status: decision, comment: comment ?? null },
        details: { messageId, messageHidden },
      });
    });
    const report = await findReport(db, id);
    if (!report) throw reportNotFound(id);
    return { message: decision === 'RESOLVED' ? 'Report resolved' : 'Report dismissed', result: report };
  },

  async moderateForumTopic(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { action, reason } = req.body;
    const topic = await db.transaction().execute(async (trx) => {
      const before = await lockTopicState(trx, id);
      if (!before) throw topicNotFound(id);
      const after = await moderateTopic(trx, id, action);
      if (!after) {
        const current = (await topicStatus(trx, id))!;
        throw new AppError(
          'INVALID_STATUS_TRANSITION',
          { currentStatus: current, requested: action, allowed: allowedTopicActions(current) },
          'Action not allowed in the current status',
        );
      }
      await audit(trx, req, {
        action: `forum_topic.${TOPIC_VERBS[action]}`,
        resource: { type: 'forum_topic', id },
        before: { status: before.status, isHidden: before.is_hidden },
        after: { status: after.status, isHidden: after.is_hidden },
        details: { reason: reason ?? null },
      });
      return after;
    });
    const moderatedAt = new Date().toISOString();
    return {
      message: TOPIC_MESSAGES[action],
      result: {
        topicId: topic.id,
        action,
        status: topic.status,
        isHidden: topic.is_hidden,
        reason: reason ?? null,
        moderatedBy: { id: auth.userId, name: await staffName(db, auth.userId) },
        moderatedAt,
      },
    };
  },

  async moderateForumMessage(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { action, reason } = req.body;
    const outcome = await db.transaction().execute(async (trx) => {
      const message = await findMessage(trx, id);
      if (!message || message.deleted_at !== null) throw messageNotFound(id);
      // The main message stands for its topic: its visibility is the topic's.
      const wasHidden = message.is_main_message ? (await lockTopicState(trx, message.topic_id))!.is_hidden : message.is_hidden;
      const isHidden = await setMessageHidden(trx, message, action === 'HIDE');
      await audit(trx, req, {
        action: action === 'HIDE' ? 'forum_message.hidden' : 'forum_message.unhidden',
        resource: { type: 'forum_message', id },
        before: { isHidden: wasHidden },
        after: { isHidden },
        details: { topicId: message.topic_id, reason: reason ?? null },
      });
      return { topicId: message.topic_id, isHidden };
    });
    const moderatedAt = new Date().toISOString();
    return {
      message: action === 'HIDE' ? 'Message hidden' : 'Message unhidden',
      result: {
        messageId: id,
        topicId: outcome.topicId,
        action,
        isHidden: outcome.isHidden,
        reason: reason ?? null,
        moderatedBy: { id: auth.userId, name: await staffName(db, auth.userId) },
        moderatedAt,
      },
    };
  },

  async getForumStats(req) {
    return { message: 'Forum statistics retrieved successfully', result: await forumStats(req.server.db) };
  },
};
