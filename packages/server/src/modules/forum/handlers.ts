import type { ModuleHandlers } from '../../http/handlers.js';
import { lookupHandlers } from './lookup-handlers.js';
import { messageHandlers } from './message-handlers.js';
import { topicHandlers } from './topic-handlers.js';

/** The user side of the forum (`/trade/forum/*`). */
export const forumHandlers: ModuleHandlers<
  | 'createForumTopic'
  | 'listForumTopics'
  | 'getForumTopicById'
  | 'updateForumTopic'
  | 'deleteForumTopic'
  | 'listTopicMessages'
  | 'likeForumTopic'
  | 'subscribeForumTopic'
  | 'unsubscribeForumTopic'
  | 'createForumMessage'
  | 'getForumMessageById'
  | 'updateForumMessage'
  | 'deleteForumMessage'
  | 'listMessageReplies'
  | 'voteForumMessage'
  | 'reportForumMessage'
  | 'listForumCategories'
  | 'getForumCategoryById'
  | 'listForumTags'
  | 'listMyForumReports'
  | 'listMyForumSubscriptions'
> = {
  ...topicHandlers,
  ...messageHandlers,
  ...lookupHandlers,
};
