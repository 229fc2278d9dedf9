import type { ModuleHandlers } from '../../http/handlers.js';
import { accountStateHandlers } from './account-state-handlers.js';
import { accountHandlers } from './account-handlers.js';
import { sessionHandlers } from './session-handlers.js';

export const userHandlers: ModuleHandlers<
  | 'listUsers'
  | 'createUser'
  | 'getUserById'
  | 'updateUser'
  | 'deleteUser'
  | 'activateUser'
  | 'deactivateUser'
  | 'changeUserPassword'
  | 'revokeUserSessions'
  | 'listSessions'
  | 'getSessionById'
  | 'revokeSession'
> = Object.assign({}, accountHandlers, accountStateHandlers, sessionHandlers);
