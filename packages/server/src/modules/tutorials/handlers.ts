import type { Handlers } from '../../http/handlers.js';

export const tutorialHandlers: Partial<Handlers> = {};
