import { avatarUrl } from '../../lib/avatar.js';
import type { components } from '@transport-ops/contract';
import { iso } from '../../lib/time.js';
import type { CategoryRow, SubscriptionRow } from './interaction-repository.js';
import type { MessageRow } from './message-repository.js';
import type { TagRefRow, TopicRow } from './topic-repository.js';

type Schemas = components['schemas'];

/** Colour and icon shown for configuration entries stored without one (the admin defaults). */
export const DEFAULT_COLOR = '#607D8B';
export const DEFAULT_ICON = 'folder';

export const DELETED_PLACEHOLDER = '[deleted]';
export const HIDDEN_PLACEHOLDER = '[hidden by moderator]';

type TopicBase = Omit<TopicRow, 'user_liked' | 'is_subscribed'>;

export const toTagRef = (tag: TagRefRow): Schemas['TagRef'] => ({ id: tag.id, name: tag.name, color: tag.color });

const toAuthor = (id: number, firstName: string, lastName: string, avatarAt: Date | null): Schemas['ForumAuthor'] => ({
  id,
  firstName,
  lastName,
  avatar: avatarUrl(id, avatarAt),
});

function topicFields(row: TopicBase, tags: TagRefRow[]) {
  return {
    id: row.id,
    publicId: row.public_id,
    title: row.title,
    description: row.description ?? '',
    content: row.content,
    status: row.status,
    viewsCount: row.views_count,
    messagesCount: row.messages_count,
    likesCount: row.likes_count,
    category:
      row.category_id === null ? null : { id: row.category_id, name: row.category_name ?? '', description: row.category_description ?? '' },
    tags: tags.map(toTagRef),
    author: toAuthor(row.author_id, row.author_first_name, row.author_last_name, row.author_avatar_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toTopic(row: TopicRow, tags: TagRefRow[]): Schemas['ForumTopic'] {
  return Object.assign({}, topicFields(row, tags), {
    userLiked: Boolean(row.user_liked),
    isSubscribed: Boolean(row.is_subscribed),
    lastMessageAt: iso(row.last_message_at),
  });
}

export interface LastMessageJson {
  id: number;
  content: string;
  first_name: string;
  last_name: string;
  created_at: string;
}

export function toTopicListItem(
  row: TopicBase & { last_message: LastMessageJson | null },
  tags: TagRefRow[],
): Schemas['ForumTopicListItem'] {
  const last = row.last_message;
  return Object.assign({}, topicFields(row, tags), {
    lastMessage:
      last === null
        ? null
        : {
            id: last.id,
            content: last.content,
            author: { firstName: last.first_name, lastName: last.last_name },
            createdAt: iso(last.created_at),
          },
  });
}

/** A message, or its placeholder when it is deleted or hidden (it is only listed then because it has visible replies). */
export function toMessage(row: MessageRow): Schemas['ForumMessage'] {
  const isDeleted = row.deleted_at !== null;
  const isHidden = row.is_hidden;
  return {
    id: row.id,
    content: isDeleted ? DELETED_PLACEHOLDER : isHidden ? HIDDEN_PLACEHOLDER : row.content,
    isMainMessage: row.is_main_message,
    likesCount: row.likes_count,
    dislikesCount: row.dislikes_count,
    repliesCount: Number(row.shown_replies),
    parentId: row.parent_id,
    topic: { id: row.topic_id, title: row.topic_title },
    author: toAuthor(row.author_id, row.author_first_name, row.author_last_name, row.author_avatar_at),
    userVote: row.user_vote ?? null,
    isDeleted,
    isHidden,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toSubscription(row: SubscriptionRow): Schemas['ForumSubscription'] {
  return {
    topic: {
      id: row.id,
      publicId: row.public_id,
      title: row.title,
      status: row.status,
      messagesCount: row.messages_count,
      lastMessageAt: iso(row.last_message_at),
    },
    subscribedAt: iso(row.subscribed_at),
  };
}

export function toCategory(row: CategoryRow): Schemas['ForumCategory'] {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? '',
    color: row.color ?? DEFAULT_COLOR,
    icon: row.icon ?? DEFAULT_ICON,
    topicsCount: Number(row.topics_count),
    messagesCount: Number(row.messages_count),
    isActive: true,
  };
}
