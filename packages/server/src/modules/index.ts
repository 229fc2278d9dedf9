import type { Handlers } from '../http/handlers.js';
import { authHandlers } from './auth/handlers.js';
import { systemHandlers } from './system/handlers.js';

/** Every operationId of the contract, bound to its handler. */
export const handlers: Partial<Handlers> = {
  ...authHandlers,
  ...systemHandlers,
};
