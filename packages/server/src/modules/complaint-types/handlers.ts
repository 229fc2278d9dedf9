import type { ModuleHandlers, Req } from '../../http/handlers.js';
import { configListHandlers } from '../config-lists/family.js';
import { complaintTypeUsage, findComplaintType, listComplaintTypes, toAdminType } from './repository.js';

const complaintTypes = configListHandlers({
  table: 'complaint_types',
  resource: 'complaintType',
  label: 'Complaint type',
  plural: 'Complaint types',
  list: listComplaintTypes,
  toResult: toAdminType,
  find: findComplaintType,
  toInsert: (body: Req<'createConfigComplaintType'>['body']) => ({ name: body.name, description: body.description ?? null }),
  toUpdate: (patch: Req<'updateConfigComplaintType'>['body']) => ({ name: patch.name, description: patch.description }),
  unique: [
    {
      constraint: 'complaint_types_lower_name_key',
      field: 'name',
      message: 'A complaint type with this name already exists',
      value: (input, current) => input.name ?? current?.name ?? '',
    },
  ],
  usage: complaintTypeUsage,
  inUseMessage: 'Complaint type is in use',
});

export const complaintTypeHandlers: ModuleHandlers<
  | 'listConfigComplaintTypes'
  | 'createConfigComplaintType'
  | 'getConfigComplaintTypeById'
  | 'updateConfigComplaintType'
  | 'deleteConfigComplaintType'
  | 'setConfigComplaintTypeStatus'
> = {
  listConfigComplaintTypes: complaintTypes.list,
  createConfigComplaintType: complaintTypes.create,
  getConfigComplaintTypeById: complaintTypes.get,
  updateConfigComplaintType: complaintTypes.update,
  deleteConfigComplaintType: complaintTypes.remove,
  setConfigComplaintTypeStatus: complaintTypes.setStatus,
};
