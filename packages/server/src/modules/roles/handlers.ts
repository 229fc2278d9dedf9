import { AppError, notFound } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { contains, findRole, holdersCount, revokeHolderSessions, selectRoles, toRole, type Role } from './repository.js';

const duplicateCode = (code: string) =>
  new AppError('ALREADY_EXISTS', { resource: 'role', field: 'code', value: code }, 'A role with this code already exists');

const systemRole = (id: number, message: string) => new AppError('NOT_EDITABLE', { resource: 'role', id, status: 'SYSTEM' }, message);

const inUse = (id: number, usageCount: number) =>
  new AppError('RESOURCE_IN_USE', { resource: 'role', id, usageCount }, 'Role is held by users');

async function existing(db: Parameters<typeof findRole>[0], id: number): Promise<Role> {
  const role = await findRole(db, id);
  if (!role) throw notFound.resource('role', id);
  return role;
}

export const roleHandlers: ModuleHandlers<
  'listConfigRoles' | 'createConfigRole' | 'getConfigRoleById' | 'updateConfigRole' | 'deleteConfigRole' | 'setConfigRoleStatus'
> = {
  async listConfigRoles(req) {
    const { page = 1, limit = 10, search, isActive } = req.query;
    let query = selectRoles(req.server.db);
    if (search !== undefined) query = query.where((eb) => eb.or([contains('r.code', search), contains('r.name', search)]));
    if (isActive !== undefined) query = query.where('r.is_active', '=', isActive);
    const { rows, total } = await fetchPage(query.orderBy('r.id'), page, limit);
    return { message: 'Roles retrieved', result: { data: rows.map(toRole), meta: pageMeta(total, page, limit) } };
  },

  async createConfigRole(req) {
    const { db } = req.server;
    const { code, name, description = null, accessLevel } = req.body;
    let id: number;
    try {
      ({ id } = await db
        .insertInto('roles')
        .values({ code, name, description, access_level: accessLevel, is_system: false })
        .returning('id')
        .executeTakeFirstOrThrow());
    } catch (error) {
      if (isUniqueViolation(error, 'roles_code_key')) throw duplicateCode(code);
      throw error;
    }
    return { message: 'Role created', result: await existing(db, id) };
  },

  async getConfigRoleById(req) {
    return { message: 'Role retrieved', result: await existing(req.server.db, req.params.id) };
  },

  async updateConfigRole(req) {
    const { db, sessions } = req.server;
    const { id } = req.params;
    const { code, name, description, accessLevel } = req.body;
    const role = await existing(db, id);
    const codeChanges = code !== undefined && code !== role.code;
    const levelChanges = accessLevel !== undefined && accessLevel !== role.accessLevel;
    if (role.isSystem && (codeChanges || levelChanges)) throw systemRole(id, 'System roles keep their code and access level');
    let revoked: number[] = [];
    try {
      revoked = await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('roles')
          .set({
            ...(code !== undefined && { code }),
            ...(name !== undefined && { name }),
            ...(description !== undefined && { description }),
            ...(accessLevel !== undefined && { access_level: accessLevel }),
            updated_at: new Date(),
          })
          .where('id', '=', id)
          .execute();
        // The holders' tokens carry the old level: they must log in again to get the new one.
        return levelChanges ? revokeHolderSessions(trx, id, 'role_access_level_changed') : [];
      });
    } catch (error) {
      if (isUniqueViolation(error, 'roles_code_key')) throw duplicateCode(code!);
      throw error;
    }
    await sessions.forget(revoked);
    return { message: 'Role updated', result: await existing(db, id) };
  },

  async deleteConfigRole(req) {
    const { db } = req.server;
    const { id } = req.params;
    const role = await existing(db, id);
    if (role.isSystem) throw systemRole(id, 'System roles cannot be deleted');
    if (role.usersCount > 0) throw inUse(id, role.usersCount);
    try {
      await db.deleteFrom('roles').where('id', '=', id).execute();
    } catch (error) {
      // An account given the role between the check and the delete.
      if (isForeignKeyViolation(error)) throw inUse(id, Math.max(1, await holdersCount(db, id)));
      throw error;
    }
    return { message: 'Role deleted', result: null };
  },

  async setConfigRoleStatus(req) {
    const { db } = req.server;
    const { id } = req.params;
    const { isActive } = req.body;
    const role = await existing(db, id);
    // System roles are always active: deactivating one is refused, activating it changes nothing.
    if (role.isSystem) {
      if (!isActive) throw systemRole(id, 'System roles cannot be deactivated');
      return { message: 'Role activated', result: role };
    }
    await db.updateTable('roles').set({ is_active: isActive, updated_at: new Date() }).where('id', '=', id).execute();
    return { message: isActive ? 'Role activated' : 'Role deactivated', result: await existing(db, id) };
  },
};
