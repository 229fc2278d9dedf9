import { AppError, ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { pageMeta } from '../../lib/paging.js';
import { caller } from '../../lib/identity.js';
import { findMessage, moderateTopic, setMessageHidden, staffName, topicStatus } from './moderation-repository.js';
import { allowedTopicActions } from './rules.js';
import { decideReport, findReport, listReports, reportStatus } from './report-repository.js';
import { forumStats } from './stats-repository.js';

const reportNotFound = (reportId: number) => new AppError('REPORT_NOT_FOUND', { reportId }, 'Report not found');
const topicNotFound = (topicId: number) => new AppError('TOPIC_NOT_FOUND', { topicId }, 'Topic not found');
const messageNotFound = (messageId: number) => new AppError('MESSAGE_NOT_FOUND', { messageId }, 'Message not found');

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
      if (hideMessage) {
        const message = await findMessage(trx, messageId);
        // A deleted message is already off the user side: hiding it has no effect.
        if (message && message.deleted_at === null) await setMessageHidden(trx, message, true);
      }
    });
    req.log.info(
      { audit: 'forum.report.resolve', reportId: id, decision, hideMessage, moderatorId: auth.userId, at: new Date().toISOString() },
      'forum moderation',
    );
    const report = await findReport(db, id);
    if (!report) throw reportNotFound(id);
    return { message: decision === 'RESOLVED' ? 'Report resolved' : 'Report dismissed', result: report };
  },

  async moderateForumTopic(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { action, reason } = req.body;
    const topic = await moderateTopic(db, id, action);
    if (!topic) {
      const current = await topicStatus(db, id);
      if (current === undefined) throw topicNotFound(id);
      throw new AppError(
        'INVALID_STATUS_TRANSITION',
        { currentStatus: current, requested: action, allowed: allowedTopicActions(current) },
        'Action not allowed in the current status',
      );
    }
    const moderatedAt = new Date().toISOString();
    req.log.info(
      { audit: 'forum.topic.moderate', topicId: id, action, reason: reason ?? null, moderatorId: auth.userId, at: moderatedAt },
      'forum moderation',
    );
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
      return { topicId: message.topic_id, isHidden: await setMessageHidden(trx, message, action === 'HIDE') };
    });
    const moderatedAt = new Date().toISOString();
    req.log.info(
      { audit: 'forum.message.moderate', messageId: id, action, reason: reason ?? null, moderatorId: auth.userId, at: moderatedAt },
      'forum moderation',
    );
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
