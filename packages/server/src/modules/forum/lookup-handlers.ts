import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { pageMeta } from '../../lib/paging.js';
import { iso } from '../../lib/time.js';
import { caller } from '../../lib/identity.js';
import { forumCategories, forumTags, listReports, listSubscriptions } from './interaction-repository.js';
import { DEFAULT_COLOR, toCategory, toSubscription } from './mappers.js';

type LookupOps = 'listForumCategories' | 'getForumCategoryById' | 'listForumTags' | 'listMyForumReports' | 'listMyForumSubscriptions';

export const lookupHandlers: ModuleHandlers<LookupOps> = {
  async listForumCategories(req) {
    caller(req);
    const rows = await forumCategories(req.server.db).orderBy('c.name').orderBy('c.id').execute();
    return { message: 'Categories retrieved successfully', result: rows.map(toCategory) };
  },

  async getForumCategoryById(req) {
    caller(req);
    const id = req.params.id;
    const row = await forumCategories(req.server.db).where('c.id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('CATEGORY_NOT_FOUND', { categoryId: id }, 'Category not found');
    return { message: 'Category retrieved successfully', result: toCategory(row) };
  },

  async listForumTags(req) {
    caller(req);
    const rows = await forumTags(req.server.db, req.query, req.query.limit ?? 20);
    return {
      message: 'Tags retrieved successfully',
      result: rows.map((t) => ({
        id: t.id,
        name: t.name,
        color: t.color ?? DEFAULT_COLOR,
        usageCount: Number(t.usage_count),
        isActive: true,
      })),
    };
  },

  async listMyForumReports(req) {
    const auth = caller(req);
    const page = req.query.page ?? 1;
    const limit = req.query.limit ?? 10;
    const { rows, total } = await listReports(req.server.db, auth.userId, req.query, page, limit);
    return {
      message: 'Reports retrieved successfully',
      result: {
        data: rows.map((r) => ({
          reportId: r.id,
          messageId: r.message_id,
          topic: { id: r.topic_id, title: r.topic_title },
          reason: r.reason,
          comment: r.comment,
          status: r.status,
          createdAt: iso(r.created_at),
          resolvedAt: iso(r.resolved_at),
        })),
        meta: pageMeta(total, page, limit),
      },
    };
  },

  async listMyForumSubscriptions(req) {
    const auth = caller(req);
    const page = req.query.page ?? 1;
    const limit = req.query.limit ?? 10;
    const { rows, total } = await listSubscriptions(req.server.db, auth.userId, page, limit);
    return {
      message: 'Subscriptions retrieved successfully',
      result: { data: rows.map(toSubscription), meta: pageMeta(total, page, limit) },
    };
  },
};
