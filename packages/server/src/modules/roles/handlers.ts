import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers, Req } from '../../http/handlers.js';
import { configListHandlers, uniqueField } from '../config-lists/family.js';
import { findRole, holdersCount, listRoles, revokeHolderSessions, toRole } from './repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

const systemRole = (id: number, message: string) => new AppError('NOT_EDITABLE', { resource: 'role', id, status: 'SYSTEM' }, message);

const roles = configListHandlers({
  table: 'roles',
  resource: 'role',
  label: 'Role',
  plural: 'Roles',
  list: listRoles,
  toResult: toRole,
  find: findRole,
  toInsert: (body: Req<'createConfigRole'>['body']) => ({
    code: body.code,
    name: body.name,
    description: body.description ?? null,
    access_level: body.accessLevel,
    is_system: false,
  }),
  toUpdate: (patch: Req<'updateConfigRole'>['body']) => ({
    code: patch.code,
    name: patch.name,
    description: patch.description,
    access_level: patch.accessLevel,
  }),
  unique: [uniqueField('roles_code_key', 'code', 'A role with this code already exists')],
  usage: holdersCount,
  inUseMessage: 'Role is held by users',
  async checkUpdate(_trx, role, patch) {
    const codeChanges = patch.code !== undefined && patch.code !== role.code;
    const levelChanges = patch.accessLevel !== undefined && patch.accessLevel !== role.accessLevel;
    if (role.isSystem && (codeChanges || levelChanges)) throw systemRole(role.id, 'System roles keep their code and access level');
  },
  checkDelete(role) {
    if (role.isSystem) throw systemRole(role.id, 'System roles cannot be deleted');
  },
  // System roles are always active: deactivating one is refused, activating it changes nothing.
  checkStatus(role, isActive) {
    if (role.isSystem && !isActive) throw systemRole(role.id, 'System roles cannot be deactivated');
  },
  // The holders' tokens carry the old level: they must log in again to get the new one.
  afterUpdate: async (trx, role, patch) =>
    patch.accessLevel !== undefined && patch.accessLevel !== role.accessLevel
      ? revokeHolderSessions(trx, role.id, 'role_access_level_changed')
      : [],
});

export const roleHandlers: ModuleHandlers<
  'listConfigRoles' | 'createConfigRole' | 'getConfigRoleById' | 'updateConfigRole' | 'deleteConfigRole' | 'setConfigRoleStatus'
> = {
  listConfigRoles: roles.list,
  createConfigRole: roles.create,
  getConfigRoleById: roles.get,
  updateConfigRole: roles.update,
  deleteConfigRole: roles.remove,
  setConfigRoleStatus: roles.setStatus,
};

/** The representation of an entry (write-safety/representations.ts). */
export const rolesRepresentations: ModuleRepresentations<'getConfigRoleById'> = { getConfigRoleById: roles.representation };
