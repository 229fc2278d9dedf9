import type { Handlers } from '../../http/handlers.js';

export const forumHandlers: Partial<Handlers> = {};
