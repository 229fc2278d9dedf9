import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ModuleHandlers, Result } from '../../http/handlers.js';
import { hasGlobalView } from '../../lib/scope.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { audit } from '../../lib/audit.js';
import { caller } from '../../lib/identity.js';
import { toMessage, toSubscription, toTopic, toTopicListItem } from './mappers.js';
import { allShownMessages, shownMessageIn, shownMessagesOf } from './message-repository.js';
import { mayChange, messageNotFound, notAuthor, topicClosed, topicNotFound } from './rules.js';
import { assertClean, trimmed } from './moderation.js';
import { setTopicLike, subscribe, unsubscribe } from './interaction-repository.js';
import { listTopics, type TopicFilters } from './topic-list-repository.js';
import {
  assertActiveTags,
  assertForumCategory,
  countView,
  deleteTopic,
  findTopic,
  insertTopic,
  lockTopic,
  topicTags,
  updateTopic,
  visibleTopic,
  type TopicChanges,
} from './topic-repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

async function loadTopic(db: Kysely<Database>, id: number, userId: number): Promise<Result<'createForumTopic'>> {
  const row = await findTopic(db, id, userId);
  if (!row) throw topicNotFound(id);
  const tags = await topicTags(db, [id]);
  return toTopic(row, tags.get(id) ?? []);
}

type TopicOps =
  | 'createForumTopic'
  | 'listForumTopics'
  | 'getForumTopicById'
  | 'updateForumTopic'
  | 'deleteForumTopic'
  | 'listTopicMessages'
  | 'likeForumTopic'
  | 'subscribeForumTopic'
  | 'unsubscribeForumTopic';

export const topicHandlers: ModuleHandlers<TopicOps> = {
  async createForumTopic(req) {
    const auth = caller(req);
    const body = req.body;
    const title = trimmed('title', body.title, 5);
    const content = trimmed('content', body.content, 10);
    const description = body.description?.trim() ?? '';
    assertClean({ title, description, content });
    const tagIds = body.tagIds ?? [];
    const result = await req.server.db.transaction().execute(async (trx) => {
      if (body.categoryId !== undefined) await assertForumCategory(trx, body.categoryId);
      await assertActiveTags(trx, tagIds);
      const id = await insertTopic(trx, {
        title,
        description,
        content,
        categoryId: body.categoryId ?? null,
        tagIds,
        authorId: auth.userId,
      });
      return loadTopic(trx, id, auth.userId);
    });
    return { message: 'Topic created successfully', result };
  },

  async listForumTopics(req) {
    caller(req);
    const q = req.query;
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const filters: TopicFilters = { page, limit, sortBy: q.sortBy ?? 'recent', sortOrder: q.sortOrder === 'ASC' ? 'asc' : 'desc' };
    // Set one by one (five conditional spreads cost five objects and their copies on every page).
    if (q.cursor !== undefined) filters.cursor = q.cursor;
    if (q.categoryId !== undefined) filters.categoryId = q.categoryId;
    if (q.tagId !== undefined) filters.tagId = q.tagId;
    if (q.status !== undefined) filters.status = q.status;
    if (q.search !== undefined) filters.search = q.search;
    const { rows, total, extras } = await listTopics(req.server.db, filters);
    const tags = await topicTags(
      req.server.db,
      rows.map((r) => r.id),
    );
    return {
      message: 'Topics retrieved successfully',
      result: { data: rows.map((row) => toTopicListItem(row, tags.get(row.id) ?? [])), meta: pageMeta(total, page, limit, extras) },
    };
  },

  async getForumTopicById(req) {
    const auth = caller(req);
    const id = req.params.id;
    // The view is counted here, not in the representation (a conditional write reads it too).
    if (!(await countView(req.server.db, id, auth.userId))) throw topicNotFound(id);
    return { message: 'Topic retrieved successfully', result: await topicDetail(req.server.db, id, auth.userId) };
  },

  async updateForumTopic(req) {
    const auth = caller(req);
    const id = req.params.id;
    const body = req.body;
    const changes: TopicChanges = {};
    if (body.title !== undefined) changes.title = trimmed('title', body.title, 5);
    if (body.content !== undefined) changes.content = trimmed('content', body.content, 10);
    if (body.description !== undefined) changes.description = body.description.trim();
    if (body.categoryId !== undefined) changes.categoryId = body.categoryId;
    if (body.tagIds !== undefined) changes.tagIds = body.tagIds;
    const result = await req.server.db.transaction().execute(async (trx) => {
      const topic = await lockTopic(trx, id);
      if (!topic || topic.is_hidden) throw topicNotFound(id);
      if (!mayChange(auth, topic.author_id)) throw notAuthor('topic');
      if (topic.status !== 'ACTIVE') throw topicClosed(id, topic.status);
      assertClean({ title: changes.title, description: changes.description, content: changes.content });
      if (changes.categoryId != null) await assertForumCategory(trx, changes.categoryId);
      if (changes.tagIds !== undefined) await assertActiveTags(trx, changes.tagIds);
      await updateTopic(trx, id, changes);
      return loadTopic(trx, id, auth.userId);
    });
    return { message: 'Topic updated successfully', result };
  },

  async deleteForumTopic(req) {
    const auth = caller(req);
    const id = req.params.id;
    const staff = hasGlobalView(auth);
    await req.server.db.transaction().execute(async (trx) => {
      const topic = await lockTopic(trx, id);
      if (!topic || (topic.is_hidden && !staff)) throw topicNotFound(id);
      if (!mayChange(auth, topic.author_id)) throw notAuthor('topic');
      if (!staff && topic.status !== 'ACTIVE') throw topicClosed(id, topic.status);
      await deleteTopic(trx, id);
      // A moderator removing another user's topic is a staff change; an author's own deletion is not audited.
      if (topic.author_id !== auth.userId) {
        await audit(trx, req, {
          action: 'forum_topic.deleted',
          resource: { type: 'forum_topic', id },
          before: { title: topic.title, status: topic.status, isHidden: topic.is_hidden },
          details: { authorId: topic.author_id },
        });
      }
    });
    return { message: 'Topic deleted successfully', result: null };
  },

  async listTopicMessages(req) {
    const auth = caller(req);
    const { db } = req.server;
    const id = req.params.id;
    const page = req.query.page ?? 1;
    const limit = req.query.limit ?? 20;
    const parentId = req.query.parentId;
    await visibleTopic(db, id);
    if (parentId !== undefined && !(await shownMessageIn(db, id, parentId, auth.userId))) throw messageNotFound(parentId);
    const { rows, total } = await fetchPage(shownMessagesOf(id, auth.userId, req.query), page, limit, db);
    return { message: 'Messages retrieved successfully', result: { data: rows.map(toMessage), meta: pageMeta(total, page, limit) } };
  },

  async likeForumTopic(req) {
    const auth = caller(req);
    const id = req.params.id;
    const { action } = req.body;
    const likesCount = await req.server.db.transaction().execute(async (trx) => {
      await visibleTopic(trx, id);
      return setTopicLike(trx, id, auth.userId, action === 'LIKE');
    });
    return {
      message: action === 'LIKE' ? 'Topic liked' : 'Like removed',
      result: { topicId: id, action, likesCount, userLiked: action === 'LIKE' },
    };
  },

  async subscribeForumTopic(req) {
    const auth = caller(req);
    const { db } = req.server;
    const id = req.params.id;
    await visibleTopic(db, id);
    const row = await subscribe(db, id, auth.userId);
    return { message: 'Subscribed to topic', result: toSubscription(row) };
  },

  async unsubscribeForumTopic(req) {
    const auth = caller(req);
    const { db } = req.server;
    const id = req.params.id;
    await visibleTopic(db, id);
    await unsubscribe(db, id, auth.userId);
    return { message: 'Unsubscribed from topic', result: null };
  },
};

/** The topic with its shown messages, as its GET answers it. */
async function topicDetail(db: Kysely<Database>, id: number, userId: number): Promise<Result<'getForumTopicById'>> {
  const topic = await loadTopic(db, id, userId);
  const messages = await allShownMessages(db, id, userId);
  return Object.assign({}, topic, { messages: messages.map(toMessage) });
}

/** The topic as its GET answers it, without counting a view (write-safety/representations.ts). */
export const topicRepresentations: ModuleRepresentations<'getForumTopicById'> = {
  getForumTopicById: {
    row: { table: 'forum_topics', id: (req) => req.params.id },
    async read(req) {
      await visibleTopic(req.server.db, req.params.id);
      return topicDetail(req.server.db, req.params.id, caller(req).userId);
    },
  },
};
