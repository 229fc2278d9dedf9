import type { Handlers } from '../../http/handlers.js';

export const complaintTypeHandlers: Partial<Handlers> = {};
