import type { Handlers } from '../../http/handlers.js';

export const announcementHandlers: Partial<Handlers> = {};
