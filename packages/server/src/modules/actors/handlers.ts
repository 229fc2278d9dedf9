import type { Handlers } from '../../http/handlers.js';

export const actorHandlers: Partial<Handlers> = {};
