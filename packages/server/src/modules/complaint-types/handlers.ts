import type { ModuleHandlers, Req } from '../../http/handlers.js';
import { configListHandlers, uniqueField } from '../config-lists/family.js';
import { complaintTypeUsage, findComplaintType, listComplaintTypes, toAdminType } from './repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

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
  unique: [uniqueField('complaint_types_lower_name_key', 'name', 'A complaint type with this name already exists')],
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

/** The representation of an entry (write-safety/representations.ts). */
export const complaintTypesRepresentations: ModuleRepresentations<'getConfigComplaintTypeById'> = {
  getConfigComplaintTypeById: complaintTypes.representation,
};
