import type { ModuleHandlers } from '../../http/handlers.js';
import { lookupHandlers } from './lookup-handlers.js';
import { messageHandlers } from './message-handlers.js';
import { topicHandlers } from './topic-handlers.js';

type Ops = keyof typeof topicHandlers | keyof typeof messageHandlers | keyof typeof lookupHandlers;

/** The user side of the forum (`/trade/forum/*`). */
export const forumHandlers: ModuleHandlers<Ops> = Object.assign({}, topicHandlers, messageHandlers, lookupHandlers);
