import { AppError } from '../../http/errors.js';
import { ACCESS_LEVELS, type AccessLevel } from '../auth/tokens.js';
import type { AuthContext } from '../../plugins/security.js';

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

export const selfAction = (action: 'delete' | 'deactivate' | 'revoke', message: string) =>
  new AppError('SELF_ACTION_FORBIDDEN', { action }, message);
