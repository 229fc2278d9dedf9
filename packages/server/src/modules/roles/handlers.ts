import type { Handlers } from '../../http/handlers.js';

export const roleHandlers: Partial<Handlers> = {};
