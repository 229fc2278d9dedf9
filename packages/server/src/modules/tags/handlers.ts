import type { Handlers } from '../../http/handlers.js';

export const tagHandlers: Partial<Handlers> = {};
