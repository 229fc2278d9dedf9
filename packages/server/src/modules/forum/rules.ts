import type { TopicStatus } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import { hasGlobalView } from '../../lib/scope.js';
import type { AuthContext } from '../../lib/identity.js';

/** Who may change any topic or message besides its author. */
export const STAFF_ROLES = ['supervisor', 'admin', 'super_admin'];

export const notAuthor = (what: 'topic' | 'message') =>
  new AppError('FORBIDDEN', { requiredRoles: STAFF_ROLES }, `Only the author or a supervisor may change this ${what}`);

/** The author, or a supervisor and above. */
export const mayChange = (auth: AuthContext, authorId: number) => authorId === auth.userId || hasGlobalView(auth);

export const topicNotFound = (topicId: number) => new AppError('TOPIC_NOT_FOUND', { topicId }, 'Topic not found');
export const topicClosed = (topicId: number, status: TopicStatus) => new AppError('TOPIC_CLOSED', { topicId, status }, 'Topic is closed');
export const messageNotFound = (messageId: number) => new AppError('MESSAGE_NOT_FOUND', { messageId }, 'Message not found');
