import type { Handlers } from '../../http/handlers.js';

export const geographyHandlers: Partial<Handlers> = {};
