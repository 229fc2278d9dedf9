import { AppError, notFound } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { contains, countryExists, findState, selectStates, toState } from './repository.js';

const duplicateCode = (code: string) =>
  new AppError('ALREADY_EXISTS', { resource: 'state', field: 'code', value: code }, 'A state with this code already exists in this country');

export const stateHandlers: ModuleHandlers<
  'listConfigStates' | 'createConfigState' | 'getConfigStateById' | 'updateConfigState' | 'deleteConfigState' | 'setConfigStateStatus'
> = {
  async listConfigStates(req) {
    const { page = 1, limit = 10, search, countryId, isActive } = req.query;
    let query = selectStates(req.server.db);
    if (search !== undefined) query = query.where((eb) => eb.or([contains('s.code', search), contains('s.name', search)]));
    if (countryId !== undefined) query = query.where('s.country_id', '=', countryId);
    if (isActive !== undefined) query = query.where('s.is_active', '=', isActive);
    const ordered = query.orderBy('c.name').orderBy('s.country_id').orderBy('s.name').orderBy('s.id');
    const { rows, total } = await fetchPage(ordered, page, limit);
    return { message: 'States retrieved', result: { data: rows.map(toState), meta: pageMeta(total, page, limit) } };
  },

  async createConfigState(req) {
    const { db } = req.server;
    const { countryId, code, name } = req.body;
    // An inactive country is accepted: a country can be prepared before it is activated.
    if (!(await countryExists(db, countryId))) throw notFound.resource('country', countryId);
    let id: number;
    try {
      ({ id } = await db
        .insertInto('states')
        .values({ country_id: countryId, code, name })
        .returning('id')
        .executeTakeFirstOrThrow());
    } catch (error) {
      if (isUniqueViolation(error, 'states_country_code_key')) throw duplicateCode(code);
      if (isForeignKeyViolation(error)) throw notFound.resource('country', countryId);
      throw error;
    }
    return { message: 'State created', result: (await findState(db, id))! };
  },

  async getConfigStateById(req) {
    const state = await findState(req.server.db, req.params.id);
    if (!state) throw notFound.resource('state', req.params.id);
    return { message: 'State retrieved', result: state };
  },

  async updateConfigState(req) {
    const { db } = req.server;
    const { id } = req.params;
    const { countryId, code, name } = req.body;
    const current = await findState(db, id);
    if (!current) throw notFound.resource('state', id);
    if (countryId !== undefined && !(await countryExists(db, countryId))) throw notFound.resource('country', countryId);
    try {
      await db
        .updateTable('states')
        .set({
          ...(countryId !== undefined && { country_id: countryId }),
          ...(code !== undefined && { code }),
          ...(name !== undefined && { name }),
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .execute();
    } catch (error) {
      if (isUniqueViolation(error, 'states_country_code_key')) throw duplicateCode(code ?? current.code);
      if (isForeignKeyViolation(error)) throw notFound.resource('country', countryId!);
      throw error;
    }
    const state = await findState(db, id);
    if (!state) throw notFound.resource('state', id);
    return { message: 'State updated', result: state };
  },

  async deleteConfigState(req) {
    const { db } = req.server;
    const { id } = req.params;
    try {
      const deleted = await db.deleteFrom('states').where('id', '=', id).returning('id').executeTakeFirst();
      if (!deleted) throw notFound.resource('state', id);
    } catch (error) {
      // No table refers to states yet; a future reference answers as the contract declares.
      if (isForeignKeyViolation(error)) throw new AppError('RESOURCE_IN_USE', { resource: 'state', id, usageCount: 1 }, 'State is referenced by other records');
      throw error;
    }
    return { message: 'State deleted', result: null };
  },

  async setConfigStateStatus(req) {
    const { db } = req.server;
    const { id } = req.params;
    const row = await db
      .updateTable('states')
      .set({ is_active: req.body.isActive, updated_at: new Date() })
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound.resource('state', id);
    return { message: req.body.isActive ? 'State activated' : 'State deactivated', result: (await findState(db, id))! };
  },
};
