import type { Handlers } from '../../http/handlers.js';

export const organizationHandlers: Partial<Handlers> = {};
