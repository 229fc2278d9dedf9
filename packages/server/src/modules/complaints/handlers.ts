import type { Handlers } from '../../http/handlers.js';

export const complaintHandlers: Partial<Handlers> = {};
