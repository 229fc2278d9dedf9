import type { Handlers } from '../../http/handlers.js';

export const forumAdminHandlers: Partial<Handlers> = {};
