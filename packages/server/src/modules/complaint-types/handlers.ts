import { AppError, notFound } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import {
  countUsage,
  deleteType,
  findType,
  insertType,
  listTypesQuery,
  nameTaken,
  setTypeActive,
  toAdminType,
  updateType,
} from './repository.js';

const RESOURCE = 'complaintType';

/**
 * ON DELETE RESTRICT reports 23001 (restrict_violation), NO ACTION 23503: either means the type is
 * still referenced. (lib/db-errors.ts has no helper for 23001 yet.)
 */
const isStillReferenced = (error: unknown) =>
  isForeignKeyViolation(error) || (error as { code?: unknown } | null)?.code === '23001';

/** Both the exact unique constraint and the lower(name) index (migration 0002) guard the name. */
const isNameViolation = (error: unknown) =>
  isUniqueViolation(error, 'complaint_types_lower_name_key') || isUniqueViolation(error, 'complaint_types_name_key');

const nameExists = (value: string) =>
  new AppError('ALREADY_EXISTS', { resource: RESOURCE, field: 'name', value }, 'A complaint type with this name already exists');

export const complaintTypeHandlers: ModuleHandlers<
  | 'listConfigComplaintTypes'
  | 'createConfigComplaintType'
  | 'getConfigComplaintTypeById'
  | 'updateConfigComplaintType'
  | 'deleteConfigComplaintType'
  | 'setConfigComplaintTypeStatus'
> = {
  async listConfigComplaintTypes(req) {
    const { page = 1, limit = 10, search, isActive } = req.query;
    const { rows, total } = await fetchPage(listTypesQuery(req.server.db, { search, isActive }), page, limit);
    return {
      message: 'Complaint types retrieved',
      result: { data: rows.map(toAdminType), meta: pageMeta(total, page, limit) },
    };
  },

  async createConfigComplaintType(req) {
    const { db } = req.server;
    const { name, description = null } = req.body;
    if (await nameTaken(db, name)) throw nameExists(name);
    let id: number;
    try {
      id = await insertType(db, { name, description });
    } catch (error) {
      if (isNameViolation(error)) throw nameExists(name);
      throw error;
    }
    const created = await findType(db, id);
    return { message: 'Complaint type created', result: toAdminType(created!) };
  },

  async getConfigComplaintTypeById(req) {
    const row = await findType(req.server.db, req.params.id);
    if (!row) throw notFound.resource(RESOURCE, req.params.id);
    return { message: 'Complaint type retrieved', result: toAdminType(row) };
  },

  async updateConfigComplaintType(req) {
    const { db } = req.server;
    const { id } = req.params;
    const { name, description } = req.body;
    if (!(await findType(db, id))) throw notFound.resource(RESOURCE, id);
    if (name !== undefined && (await nameTaken(db, name, id))) throw nameExists(name);
    try {
      const changed = await updateType(db, id, {
        ...(name !== undefined ? { name } : {}),
        ...(description !== undefined ? { description } : {}),
      });
      if (!changed) throw notFound.resource(RESOURCE, id);
    } catch (error) {
      if (isNameViolation(error)) throw nameExists(name!);
      throw error;
    }
    return { message: 'Complaint type updated', result: toAdminType((await findType(db, id))!) };
  },

  async deleteConfigComplaintType(req) {
    const { db } = req.server;
    const { id } = req.params;
    // The foreign key of complaints (ON DELETE RESTRICT) decides: no count-then-delete race.
    try {
      if (!(await deleteType(db, id))) throw notFound.resource(RESOURCE, id);
    } catch (error) {
      if (!isStillReferenced(error)) throw error;
      const usageCount = await countUsage(db, id);
      throw new AppError('RESOURCE_IN_USE', { resource: RESOURCE, id, usageCount }, 'Complaint type is in use');
    }
    return { message: 'Complaint type deleted', result: null };
  },

  async setConfigComplaintTypeStatus(req) {
    const { db } = req.server;
    const { id } = req.params;
    const { isActive } = req.body;
    await setTypeActive(db, id, isActive);
    const row = await findType(db, id);
    if (!row) throw notFound.resource(RESOURCE, id);
    return { message: isActive ? 'Complaint type activated' : 'Complaint type deactivated', result: toAdminType(row) };
  },
};
