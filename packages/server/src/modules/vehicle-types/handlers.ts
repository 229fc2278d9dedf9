import { AppError } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { caller } from '../../plugins/security.js';
import { findVehicleType, listQuery, lockNames, nameTaken, toVehicleTypeAdmin, usageCount } from './repository.js';

const RESOURCE = 'vehicle_type';
const vehicleTypeNotFound = (id: number) =>
  new AppError('RESOURCE_NOT_FOUND', { resource: RESOURCE, id }, 'Vehicle type not found');
const nameExists = (value: string) =>
  new AppError('ALREADY_EXISTS', { resource: RESOURCE, field: 'name', value }, 'A vehicle type with this name already exists');
const inUse = (id: number, count: number) =>
  new AppError('RESOURCE_IN_USE', { resource: RESOURCE, id, usageCount: count }, 'Vehicle type is used by transports and cannot be deleted');

export const vehicleTypeHandlers: ModuleHandlers<
  | 'listConfigVehicleTypes'
  | 'createConfigVehicleType'
  | 'getConfigVehicleTypeById'
  | 'updateConfigVehicleType'
  | 'deleteConfigVehicleType'
  | 'setConfigVehicleTypeStatus'
> = {
  async listConfigVehicleTypes(req) {
    caller(req);
    const { page = 1, limit = 10, ...filters } = req.query;
    const { rows, total } = await fetchPage(listQuery(req.server.db, filters), page, limit);
    return {
      message: 'Vehicle types retrieved',
      result: { data: rows.map(toVehicleTypeAdmin), meta: pageMeta(total, page, limit) },
    };
  },

  async createConfigVehicleType(req) {
    caller(req);
    const { db } = req.server;
    const body = req.body;
    const id = await db
      .transaction()
      .execute(async (trx) => {
        await lockNames(trx);
        if (await nameTaken(trx, body.name)) throw nameExists(body.name);
        const row = await trx
          .insertInto('vehicle_types')
          .values({
            name: body.name,
            description: body.description ?? null,
            max_weight: body.maxWeight,
            category: body.category,
            is_active: body.isActive ?? true,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return row.id;
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error, 'vehicle_types_name_key')) throw nameExists(body.name);
        throw error;
      });
    const created = await findVehicleType(db, id);
    return { message: 'Vehicle type created', result: toVehicleTypeAdmin(created!) };
  },

  async getConfigVehicleTypeById(req) {
    caller(req);
    const row = await findVehicleType(req.server.db, req.params.id);
    if (!row) throw vehicleTypeNotFound(req.params.id);
    return { message: 'Vehicle type retrieved', result: toVehicleTypeAdmin(row) };
  },

  async updateConfigVehicleType(req) {
    caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const body = req.body;
    const row = await db
      .transaction()
      .execute(async (trx) => {
        if (body.name !== undefined) {
          await lockNames(trx);
          if (await nameTaken(trx, body.name, id)) throw nameExists(body.name);
        }
        const updated = await trx
          .updateTable('vehicle_types')
          .set({
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(body.maxWeight !== undefined ? { max_weight: body.maxWeight } : {}),
            ...(body.category !== undefined ? { category: body.category } : {}),
            updated_at: new Date(),
          })
          .where('id', '=', id)
          .returning('id')
          .executeTakeFirst();
        if (!updated) throw vehicleTypeNotFound(id);
        return findVehicleType(trx, id);
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error, 'vehicle_types_name_key')) throw nameExists(body.name ?? '');
        throw error;
      });
    return { message: 'Vehicle type updated', result: toVehicleTypeAdmin(row!) };
  },

  async deleteConfigVehicleType(req) {
    caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const count = await usageCount(db, id);
    if (count > 0) throw inUse(id, count);
    try {
      const deleted = await db.deleteFrom('vehicle_types').where('id', '=', id).returning('id').executeTakeFirst();
      if (!deleted) throw vehicleTypeNotFound(id);
    } catch (error) {
      // A transport created between the count and the delete: the foreign key refuses it.
      if (isForeignKeyViolation(error, 'transports_vehicle_type_id_fkey')) throw inUse(id, await usageCount(db, id));
      throw error;
    }
    return { message: 'Vehicle type deleted', result: null };
  },

  async setConfigVehicleTypeStatus(req) {
    caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { isActive } = req.body;
    const updated = await db
      .updateTable('vehicle_types')
      .set({ is_active: isActive, updated_at: new Date() })
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    if (!updated) throw vehicleTypeNotFound(id);
    const row = await findVehicleType(db, id);
    return { message: isActive ? 'Vehicle type activated' : 'Vehicle type deactivated', result: toVehicleTypeAdmin(row!) };
  },
};
