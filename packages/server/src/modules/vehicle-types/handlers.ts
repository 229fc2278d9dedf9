import type { ModuleHandlers, Req } from '../../http/handlers.js';
import { configListHandlers, uniqueField } from '../config-lists/family.js';
import { findVehicleType, listVehicleTypes, toVehicleTypeAdmin, vehicleTypeUsage } from './repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

const vehicleTypes = configListHandlers({
  table: 'vehicle_types',
  resource: 'vehicle_type',
  label: 'Vehicle type',
  plural: 'Vehicle types',
  list: listVehicleTypes,
  toResult: toVehicleTypeAdmin,
  find: findVehicleType,
  toInsert: (body: Req<'createConfigVehicleType'>['body']) => ({
    name: body.name,
    description: body.description ?? null,
    max_weight: body.maxWeight,
    category: body.category,
    is_active: body.isActive ?? true,
  }),
  toUpdate: (patch: Req<'updateConfigVehicleType'>['body']) => ({
    name: patch.name,
    description: patch.description,
    max_weight: patch.maxWeight,
    category: patch.category,
  }),
  unique: [uniqueField('vehicle_types_lower_name_key', 'name', 'A vehicle type with this name already exists')],
  usage: vehicleTypeUsage,
  inUseMessage: 'Vehicle type is used by transports and cannot be deleted',
});

export const vehicleTypeHandlers: ModuleHandlers<
  | 'listConfigVehicleTypes'
  | 'createConfigVehicleType'
  | 'getConfigVehicleTypeById'
  | 'updateConfigVehicleType'
  | 'deleteConfigVehicleType'
  | 'setConfigVehicleTypeStatus'
> = {
  listConfigVehicleTypes: vehicleTypes.list,
  createConfigVehicleType: vehicleTypes.create,
  getConfigVehicleTypeById: vehicleTypes.get,
  updateConfigVehicleType: vehicleTypes.update,
  deleteConfigVehicleType: vehicleTypes.remove,
  setConfigVehicleTypeStatus: vehicleTypes.setStatus,
};

/** The representation of an entry (write-safety/representations.ts). */
export const vehicleTypesRepresentations: ModuleRepresentations<'getConfigVehicleTypeById'> = {
  getConfigVehicleTypeById: vehicleTypes.representation,
};
