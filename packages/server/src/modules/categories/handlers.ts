import type { Handlers } from '../../http/handlers.js';

export const categoryHandlers: Partial<Handlers> = {};
