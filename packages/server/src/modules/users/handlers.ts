import type { Handlers } from '../../http/handlers.js';

export const userHandlers: Partial<Handlers> = {};
