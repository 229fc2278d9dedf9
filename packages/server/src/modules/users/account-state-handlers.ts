import { hashPassword } from '../../lib/passwords.js';
import { AppError, ListError, notFound } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation } from '../../lib/db-errors.js';
import { caller, type AuthContext } from '../../lib/identity.js';
import { audit, REDACTED } from '../../lib/audit.js';
import { revokeSessions } from '../auth/repository.js';
import { deleteAccount, setAccountActive, setPasswordHash } from './account-repository.js';
import { accountUsage, auditedFields, findUserRow, loadUser, type UserRow } from './repository.js';
import { assertCanActOn, assertKeepsAnAdministrator, assertPasswordAllowed, selfAction } from './rules.js';

type Db = Parameters<typeof loadUser>[0];

/** The account (404), which the caller's level allows acting on (403). */
async function actionable(db: Db, auth: AuthContext, id: number): Promise<UserRow> {
  const target = await findUserRow(db, id);
  if (!target) throw notFound.resource('user', id);
  assertCanActOn(auth, target.access_level);
  return target;
}

const inUse = (id: number, usageCount: number) =>
  new AppError('RESOURCE_IN_USE', { resource: 'user', id, usageCount }, 'User has created records; deactivate it instead');

export const accountStateHandlers: ModuleHandlers<'deleteUser' | 'activateUser' | 'deactivateUser' | 'changeUserPassword'> = {
  async deleteUser(req) {
    const auth = caller(req);
    const { db, sessions } = req.server;
    const { id } = req.params;
    const target = await findUserRow(db, id);
    if (!target) throw notFound.resource('user', id);
    if (id === auth.userId) throw selfAction('delete', 'You cannot delete yourself');
    assertCanActOn(auth, target.access_level);
    const usage = await accountUsage(db, id);
    if (usage > 0) throw inUse(id, usage);
    let revoked: number[];
    try {
      revoked = await db.transaction().execute(async (trx) => {
        await assertKeepsAnAdministrator(trx, target);
        const ids = await revokeSessions(trx, { userId: id }, 'account_deleted');
        await audit(trx, req, { action: 'user.deleted', resource: { type: 'user', id }, before: auditedFields(target) });
        await deleteAccount(trx, target);
        return ids;
      });
    } catch (error) {
      // A record created by the account (or referring to its actor) between the count and the delete.
      if (isForeignKeyViolation(error)) throw inUse(id, Math.max(1, await accountUsage(db, id)));
      throw error;
    }
    await sessions.forget(revoked);
    return { message: 'User deleted', result: null };
  },

  async activateUser(req) {
    const auth = caller(req);
    const { db } = req.server;
    const target = await actionable(db, auth, req.params.id);
    await db.transaction().execute(async (trx) => {
      await setAccountActive(trx, target, true);
      await audit(trx, req, {
        action: 'user.activated',
        resource: { type: 'user', id: target.id },
        before: { isActive: target.is_active },
        after: { isActive: true },
      });
    });
    return { message: 'User activated', result: await loadUser(db, target.id) };
  },

  async deactivateUser(req) {
    const auth = caller(req);
    const { db, sessions } = req.server;
    const { id } = req.params;
    const target = await findUserRow(db, id);
    if (!target) throw notFound.resource('user', id);
    if (id === auth.userId) throw selfAction('deactivate', 'You cannot deactivate yourself');
    assertCanActOn(auth, target.access_level);
    const revoked = await db.transaction().execute(async (trx) => {
      await assertKeepsAnAdministrator(trx, target);
      await setAccountActive(trx, target, false);
      const ended = await revokeSessions(trx, { userId: id }, 'account_deactivated');
      await audit(trx, req, {
        action: 'user.deactivated',
        resource: { type: 'user', id },
        before: { isActive: target.is_active },
        after: { isActive: false },
        details: { revokedSessions: ended.length },
      });
      return ended;
    });
    await sessions.forget(revoked);
    return { message: 'User deactivated', result: await loadUser(db, id) };
  },

  async changeUserPassword(req) {
    const auth = caller(req);
    const { db, sessions } = req.server;
    const { newPassword, confirmPassword } = req.body;
    if (confirmPassword !== newPassword)
      throw new ListError(400, 'Validation failed', ['body/confirmPassword must be equal to newPassword']);
    const target = await actionable(db, auth, req.params.id);
    await assertPasswordAllowed('newPassword', newPassword, target);
    const passwordHash = await hashPassword(newPassword); // argon2id (lib/passwords.ts)
    const revoked = await db.transaction().execute(async (trx) => {
      await setPasswordHash(trx, target.id, passwordHash);
      const ended = await revokeSessions(trx, { userId: target.id }, 'password_changed');
      await audit(trx, req, {
        action: 'user.password_reset',
        resource: { type: 'user', id: target.id },
        before: { password: REDACTED },
        after: { password: REDACTED },
        details: { revokedSessions: ended.length },
      });
      return ended;
    });
    await sessions.forget(revoked);
    return { message: 'Password changed; all sessions of the user were ended', result: null };
  },
};
