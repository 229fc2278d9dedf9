import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError, ListError } from '../../lib/errors.js';
import { ACCESS_LEVELS, type AccessLevel, type AuthContext } from '../../lib/identity.js';
import { isApiKeyAccount, lockOtherActiveAccounts } from './account-repository.js';
import { passwordProblem } from '../../lib/password-policy.js';

const rank = (level: AccessLevel) => ACCESS_LEVELS.indexOf(level);

export const isAbove = (level: AccessLevel, other: AccessLevel) => rank(level) > rank(other);

/** A caller may not act on an account above their own level; the answer names the levels that may. */
export function assertCanActOn(auth: AuthContext, target: AccessLevel): void {
  if (isAbove(target, auth.accessLevel)) {
    throw new AppError('FORBIDDEN', { requiredRoles: ACCESS_LEVELS.slice(rank(target)) }, 'Insufficient permissions');
  }
}

/** A caller may not grant a role above their own level. */
export function assertAssignable(auth: AuthContext, roleId: number, level: AccessLevel): void {
  if (isAbove(level, auth.accessLevel)) {
    throw new AppError('ROLE_NOT_ASSIGNABLE', { roleId }, 'You cannot assign a role above your own access level');
  }
}

/** Who may change the role of an API key's service account: those who may create keys. */
const KEY_ADMIN_LEVELS: readonly AccessLevel[] = ['admin', 'super_admin'];

/** 403 unless the caller may change the role of `userId` (an API key's service account needs an administrator). */
export async function assertMayChangeRole(db: Kysely<Database>, auth: AuthContext, userId: number): Promise<void> {
  if (KEY_ADMIN_LEVELS.includes(auth.accessLevel)) return;
  if (await isApiKeyAccount(db, userId))
    throw new AppError(
      'FORBIDDEN',
      { requiredRoles: [...KEY_ADMIN_LEVELS] },
      'Only administrators may change the role of an API key account',
    );
}

export const selfAction = (action: 'delete' | 'deactivate' | 'revoke', message: string) =>
  new AppError('SELF_ACTION_FORBIDDEN', { action }, message);

/** The access levels that administer the system: at least one active account must keep one. */
const ADMIN_LEVELS: readonly AccessLevel[] = ['admin', 'super_admin'];
export const isAdministrator = (level: AccessLevel) => ADMIN_LEVELS.includes(level);

/**
 * Refuses (409 LAST_ADMINISTRATOR) to demote, deactivate or delete `target` when it is the last
 * active administrator. Runs inside the write's transaction and locks the active administrators'
 * rows, so two administrators acting on each other at once cannot both pass.
 */
export async function assertKeepsAnAdministrator(
  trx: Kysely<Database>,
  target: { id: number; access_level: AccessLevel; is_active: boolean },
) {
  if (!target.is_active || !isAdministrator(target.access_level)) return;
  const others = await lockOtherActiveAccounts(trx, target.id, ADMIN_LEVELS);
  if (others.length === 0) {
    throw new AppError(
      'LAST_ADMINISTRATOR',
      { userId: target.id },
      'The last active administrator cannot be demoted, deactivated or deleted',
    );
  }
}

/** Password rules beyond the contract's length and pattern (lib/password-policy.ts): 400 naming the field and the rule. */
export async function assertPasswordAllowed(field: string, password: string, account: { username: string; email: string }) {
  const problem = await passwordProblem(password, account);
  if (problem !== null) throw new ListError(400, 'Validation failed', [`body/${field} ${problem}`]);
}
