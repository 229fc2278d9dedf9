import type { Handlers } from '../../http/handlers.js';

export const transportHandlers: Partial<Handlers> = {};
