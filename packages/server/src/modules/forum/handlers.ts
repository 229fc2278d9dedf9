import type { ModuleHandlers } from '../../http/handlers.js';
import { type LookupOps, lookupHandlers } from './lookup-handlers.js';
import { type MessageOps, messageHandlers } from './message-handlers.js';
import { type TopicOps, topicHandlers } from './topic-handlers.js';

/** The user side of the forum (`/trade/forum/*`). */
export const forumHandlers: ModuleHandlers<TopicOps | MessageOps | LookupOps> = {
  ...topicHandlers,
  ...messageHandlers,
  ...lookupHandlers,
};
