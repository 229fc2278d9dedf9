import { AppError, notFound } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { contains, countryUsage, findCountry, selectCountries, toCountry } from './repository.js';

const duplicateCode = (code: string) =>
  new AppError('ALREADY_EXISTS', { resource: 'country', field: 'code', value: code }, 'A country with this code already exists');

const inUse = (id: number, usageCount: number) =>
  new AppError('RESOURCE_IN_USE', { resource: 'country', id, usageCount }, 'Country is referenced by states, users, organizations or complaints');

export const countryHandlers: ModuleHandlers<
  | 'listConfigCountries'
  | 'createConfigCountry'
  | 'getConfigCountryById'
  | 'updateConfigCountry'
  | 'deleteConfigCountry'
  | 'setConfigCountryStatus'
> = {
  async listConfigCountries(req) {
    const { page = 1, limit = 10, search, isActive } = req.query;
    let query = selectCountries(req.server.db);
    if (search !== undefined) query = query.where((eb) => eb.or([contains('c.code', search), contains('c.name', search)]));
    if (isActive !== undefined) query = query.where('c.is_active', '=', isActive);
    const { rows, total } = await fetchPage(query.orderBy('c.name').orderBy('c.id'), page, limit);
    return { message: 'Countries retrieved', result: { data: rows.map(toCountry), meta: pageMeta(total, page, limit) } };
  },

  async createConfigCountry(req) {
    const { db } = req.server;
    let id: number;
    try {
      ({ id } = await db
        .insertInto('countries')
        .values({ code: req.body.code, name: req.body.name })
        .returning('id')
        .executeTakeFirstOrThrow());
    } catch (error) {
      if (isUniqueViolation(error, 'countries_code_key')) throw duplicateCode(req.body.code);
      throw error;
    }
    return { message: 'Country created', result: (await findCountry(db, id))! };
  },

  async getConfigCountryById(req) {
    const country = await findCountry(req.server.db, req.params.id);
    if (!country) throw notFound.resource('country', req.params.id);
    return { message: 'Country retrieved', result: country };
  },

  async updateConfigCountry(req) {
    const { db } = req.server;
    const { id } = req.params;
    const { code, name } = req.body;
    try {
      const updated = await db
        .updateTable('countries')
        .set({ ...(code !== undefined && { code }), ...(name !== undefined && { name }), updated_at: new Date() })
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
      if (!updated) throw notFound.resource('country', id);
    } catch (error) {
      if (isUniqueViolation(error, 'countries_code_key')) throw duplicateCode(code!);
      throw error;
    }
    return { message: 'Country updated', result: (await findCountry(db, id))! };
  },

  async deleteConfigCountry(req) {
    const { db } = req.server;
    const { id } = req.params;
    if (!(await findCountry(db, id))) throw notFound.resource('country', id);
    const usage = await countryUsage(db, id);
    if (usage > 0) throw inUse(id, usage);
    try {
      await db.deleteFrom('countries').where('id', '=', id).execute();
    } catch (error) {
      // A reference added between the count and the delete.
      if (isForeignKeyViolation(error)) throw inUse(id, Math.max(1, await countryUsage(db, id)));
      throw error;
    }
    return { message: 'Country deleted', result: null };
  },

  async setConfigCountryStatus(req) {
    const { db } = req.server;
    const { id } = req.params;
    const row = await db
      .updateTable('countries')
      .set({ is_active: req.body.isActive, updated_at: new Date() })
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound.resource('country', id);
    return { message: req.body.isActive ? 'Country activated' : 'Country deactivated', result: (await findCountry(db, id))! };
  },
};
