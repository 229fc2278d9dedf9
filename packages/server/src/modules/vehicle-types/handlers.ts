import type { Handlers } from '../../http/handlers.js';

export const vehicleTypeHandlers: Partial<Handlers> = {};
