import { invalidateAnnouncementCaches } from '../announcements/cache.js';
import { AppError, notFound } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { pageMeta } from '../../lib/paging.js';
import {
  CATEGORY_FKS,
  countUsage,
  DEFAULT_COLOR,
  DEFAULT_ICON,
  deleteCategory,
  findCategory,
  insertCategory,
  isNameConstraint,
  listCategories,
  lockName,
  nameTaken,
  scopeOf,
  updateCategory,
} from './repository.js';

const notFoundError = (id: number) => notFound.resource('category', id);
const nameExists = (name: string) =>
  new AppError('ALREADY_EXISTS', { resource: 'category', field: 'name', value: name }, 'A category with this name already exists in this scope');

/** The unique violation of a concurrent writer that got past the lock-free path. */
function asNameConflict(error: unknown, name: string): never {
  const constraint = (error as { constraint?: string } | null)?.constraint;
  if (isUniqueViolation(error) && isNameConstraint(constraint)) throw nameExists(name);
  throw error;
}

export const categoryHandlers: ModuleHandlers<
  | 'listConfigCategories'
  | 'createConfigCategory'
  | 'getConfigCategoryById'
  | 'updateConfigCategory'
  | 'deleteConfigCategory'
  | 'setConfigCategoryStatus'
> = {
  async listConfigCategories(req) {
    const q = req.query;
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const { data, total } = await listCategories(req.server.db, {
      page,
      limit,
      scope: q.scope,
      isActive: q.isActive,
      search: q.search,
      sortBy: q.sortBy ?? 'createdAt',
      sortOrder: q.sortOrder ?? 'DESC',
    });
    return { message: 'Categories retrieved successfully', result: { data, meta: pageMeta(total, page, limit) } };
  },

  async createConfigCategory(req) {
    const { db } = req.server;
    const body = req.body;
    let id: number;
    try {
      id = await db.transaction().execute(async (trx) => {
        await lockName(trx, body.scope, body.name);
        if (await nameTaken(trx, body.scope, body.name)) throw nameExists(body.name);
        return insertCategory(trx, {
          scope: body.scope,
          name: body.name,
          description: body.description ?? '',
          color: body.color ?? DEFAULT_COLOR,
          icon: body.icon ?? DEFAULT_ICON,
          isActive: body.isActive ?? true,
        });
      });
    } catch (error) {
      asNameConflict(error, body.name);
    }
    const created = await findCategory(db, id);
    if (!created) throw notFoundError(id);
    // Announcement lists and details show categories and tags; their caches must not outlive a change.
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Category created successfully', result: created };
  },

  async getConfigCategoryById(req) {
    const category = await findCategory(req.server.db, req.params.id);
    if (!category) throw notFoundError(req.params.id);
    return { message: 'Category retrieved successfully', result: category };
  },

  async updateConfigCategory(req) {
    const { db } = req.server;
    const { id } = req.params;
    const { name, description, color, icon } = req.body;
    try {
      await db.transaction().execute(async (trx) => {
        const scope = await scopeOf(trx, id);
        if (scope === undefined) throw notFoundError(id);
        if (name !== undefined) {
          await lockName(trx, scope, name);
          if (await nameTaken(trx, scope, name, id)) throw nameExists(name);
        }
        if (!(await updateCategory(trx, id, { name, description, color, icon }))) throw notFoundError(id);
      });
    } catch (error) {
      asNameConflict(error, name ?? '');
    }
    const updated = await findCategory(db, id);
    if (!updated) throw notFoundError(id);
    // Announcement lists and details show categories and tags; their caches must not outlive a change.
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Category updated successfully', result: updated };
  },

  async deleteConfigCategory(req) {
    const { db } = req.server;
    const { id } = req.params;
    const inUse = (usageCount: number) =>
      new AppError('RESOURCE_IN_USE', { resource: 'category', id, usageCount }, 'Category is in use');
    const usage = await countUsage(db, id);
    if (usage === undefined) throw notFoundError(id);
    if (usage > 0) throw inUse(usage);
    try {
      if (!(await deleteCategory(db, id))) throw notFoundError(id);
    } catch (error) {
      // A record took the category between the count and the delete.
      if (!CATEGORY_FKS.some((fk) => isForeignKeyViolation(error, fk))) throw error;
      throw inUse(Math.max((await countUsage(db, id)) ?? 1, 1));
    }
    // Announcement lists and details show categories and tags; their caches must not outlive a change.
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Category deleted successfully', result: null };
  },

  async setConfigCategoryStatus(req) {
    const { db } = req.server;
    const { id } = req.params;
    if (!(await updateCategory(db, id, { is_active: req.body.isActive }))) throw notFoundError(id);
    const category = await findCategory(db, id);
    if (!category) throw notFoundError(id);
    // Announcement lists and details show categories and tags; their caches must not outlive a change.
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Category status updated', result: category };
  },
};
