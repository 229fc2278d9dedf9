import type { ModuleHandlers } from '../../http/handlers.js';
import { accountStateHandlers } from './account-state.js';
import { accountHandlers } from './accounts.js';
import { sessionHandlers } from './sessions.js';

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
> = { ...accountHandlers, ...accountStateHandlers, ...sessionHandlers };
