import { invalidateAnnouncementCaches } from '../announcements/cache.js';
import { AppError, notFound } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { pageMeta } from '../../lib/paging.js';
import {
  countUsage,
  DEFAULT_COLOR,
  deleteTag,
  findTag,
  insertTag,
  isNameConstraint,
  listTags,
  lockName,
  nameTaken,
  TAG_FKS,
  tagExists,
  updateTag,
} from './repository.js';

const notFoundError = (id: number) => notFound.resource('tag', id);
const nameExists = (name: string) =>
  new AppError('ALREADY_EXISTS', { resource: 'tag', field: 'name', value: name }, 'A tag with this name already exists');

/** The unique violation of a concurrent writer, as the contract's conflict. */
function asNameConflict(error: unknown, name: string): never {
  const constraint = (error as { constraint?: string } | null)?.constraint;
  if (isUniqueViolation(error) && isNameConstraint(constraint)) throw nameExists(name);
  throw error;
}

export const tagHandlers: ModuleHandlers<
  'listConfigTags' | 'createConfigTag' | 'getConfigTagById' | 'updateConfigTag' | 'deleteConfigTag' | 'setConfigTagStatus'
> = {
  async listConfigTags(req) {
    const q = req.query;
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const { data, total } = await listTags(req.server.db, {
      page,
      limit,
      isActive: q.isActive,
      search: q.search,
      sortBy: q.sortBy ?? 'createdAt',
      sortOrder: q.sortOrder ?? 'DESC',
    });
    return { message: 'Tags retrieved successfully', result: { data, meta: pageMeta(total, page, limit) } };
  },

  async createConfigTag(req) {
    const { db } = req.server;
    const body = req.body;
    let id: number;
    try {
      id = await db.transaction().execute(async (trx) => {
        await lockName(trx, body.name);
        if (await nameTaken(trx, body.name)) throw nameExists(body.name);
        return insertTag(trx, { name: body.name, color: body.color ?? DEFAULT_COLOR, isActive: body.isActive ?? true });
      });
    } catch (error) {
      asNameConflict(error, body.name);
    }
    const created = await findTag(db, id);
    if (!created) throw notFoundError(id);
    // Announcement lists and details show categories and tags; their caches must not outlive a change.
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Tag created successfully', result: created };
  },

  async getConfigTagById(req) {
    const tag = await findTag(req.server.db, req.params.id);
    if (!tag) throw notFoundError(req.params.id);
    return { message: 'Tag retrieved successfully', result: tag };
  },

  async updateConfigTag(req) {
    const { db } = req.server;
    const { id } = req.params;
    const { name, color } = req.body;
    try {
      await db.transaction().execute(async (trx) => {
        if (!(await tagExists(trx, id))) throw notFoundError(id);
        if (name !== undefined) {
          await lockName(trx, name);
          if (await nameTaken(trx, name, id)) throw nameExists(name);
        }
        if (!(await updateTag(trx, id, { name, color }))) throw notFoundError(id);
      });
    } catch (error) {
      asNameConflict(error, name ?? '');
    }
    const updated = await findTag(db, id);
    if (!updated) throw notFoundError(id);
    // Announcement lists and details show categories and tags; their caches must not outlive a change.
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Tag updated successfully', result: updated };
  },

  async deleteConfigTag(req) {
    const { db } = req.server;
    const { id } = req.params;
    const inUse = (usageCount: number) => new AppError('RESOURCE_IN_USE', { resource: 'tag', id, usageCount }, 'Tag is in use');
    const usage = await countUsage(db, id);
    if (usage === undefined) throw notFoundError(id);
    if (usage > 0) throw inUse(usage);
    try {
      if (!(await deleteTag(db, id))) throw notFoundError(id);
    } catch (error) {
      // A record took the tag between the count and the delete.
      if (!TAG_FKS.some((fk) => isForeignKeyViolation(error, fk))) throw error;
      throw inUse(Math.max((await countUsage(db, id)) ?? 1, 1));
    }
    // Announcement lists and details show categories and tags; their caches must not outlive a change.
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Tag deleted successfully', result: null };
  },

  async setConfigTagStatus(req) {
    const { db } = req.server;
    const { id } = req.params;
    if (!(await updateTag(db, id, { is_active: req.body.isActive }))) throw notFoundError(id);
    const tag = await findTag(db, id);
    if (!tag) throw notFoundError(id);
    // Announcement lists and details show categories and tags; their caches must not outlive a change.
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Tag status updated', result: tag };
  },
};
