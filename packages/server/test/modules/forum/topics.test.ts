import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { expectInvalid } from '../../support/expect.js';
import { mainMessageId, messageRow, newMessage, newTopic, setTopic, topicRow, userId } from './helpers.js';

const t = useTestApp();
let agent: string;
let agent2: string;
let supervisor: string;
let forumCategoryId: number;
let tagIds: number[];

beforeAll(async () => {
  [agent, agent2, supervisor] = await Promise.all([t.token('agent'), t.token('agent2'), t.token('supervisor')]);
  const category = await t.db
    .selectFrom('categories')
    .select('id')
    .where('scope', '=', 'FORUM')
    .where('name', '=', 'Routes and logistics')
    .executeTakeFirstOrThrow();
  forumCategoryId = category.id;
  const tags = await t.db.selectFrom('tags').select('id').where('name', 'in', ['customs', 'urgent']).orderBy('id').execute();
  tagIds = tags.map((tag) => tag.id);
});

describe('POST /trade/forum/topics', () => {
  it('creates an ACTIVE topic with its main message, tags and the author subscribed, in one go', async () => {
    const res = await t.call('createForumTopic', {
      token: agent,
      body: {
        title: '  Ferry schedules Tanger Med to Algeciras  ',
        description: 'Summer timetable',
        content: 'Does anyone have the summer ferry timetable for trucks?',
        categoryId: forumCategoryId,
        tagIds,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const topic = res.body.result;
    expect(topic).toMatchObject({
      title: 'Ferry schedules Tanger Med to Algeciras',
      description: 'Summer timetable',
      content: 'Does anyone have the summer ferry timetable for trucks?',
      status: 'ACTIVE',
      viewsCount: 0,
      messagesCount: 1,
      likesCount: 0,
      category: { id: forumCategoryId, name: 'Routes and logistics' },
      author: { id: await userId(t, 'agent'), firstName: 'Sarah', lastName: 'Benali', avatar: null },
      userLiked: false,
      isSubscribed: true,
    });
    expect(topic.tags.map((tag: { id: number }) => tag.id).sort()).toEqual([...tagIds].sort());
    expect(topic.lastMessageAt).toBe(topic.createdAt);

    const main = await messageRow(t, await mainMessageId(t, topic.id));
    expect(main).toMatchObject({ content: topic.content, parent_id: null, is_main_message: true });
    const subscription = await t.db.selectFrom('forum_subscriptions').selectAll().where('topic_id', '=', topic.id).execute();
    expect(subscription).toHaveLength(1);
  });

  it('stores an empty description and no category when they are omitted', async () => {
    const topic = await newTopic(t, agent);
    expect(topic).toMatchObject({ description: '', category: null, tags: [] });
  });

  it('refuses an unknown or inactive forum category with 404 CATEGORY_NOT_FOUND and creates nothing', async () => {
    const inactive = await t.db
      .insertInto('categories')
      .values({ scope: 'FORUM', name: 'Retired forum category', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    const announcement = await t.db.selectFrom('categories').select('id').where('scope', '=', 'ANNOUNCEMENT').executeTakeFirstOrThrow();
    for (const categoryId of [999_999, inactive.id, announcement.id]) {
      const before = await t.db
        .selectFrom('forum_topics')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const res = await t.call('createForumTopic', {
        token: agent,
        body: { title: 'Category check topic', content: 'Content long enough here.', categoryId },
      });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'CATEGORY_NOT_FOUND', categoryId });
      const after = await t.db
        .selectFrom('forum_topics')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    }
  });

  it('refuses unknown or inactive tags with 404 TAG_NOT_FOUND listing their ids', async () => {
    const inactive = await t.db
      .insertInto('tags')
      .values({ name: 'retired-tag', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    const res = await t.call('createForumTopic', {
      token: agent,
      payload: { title: 'Tag check topic', content: 'Content long enough here.', tagIds: [tagIds[0], 888_888, inactive.id] },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TAG_NOT_FOUND', tagIds: [888_888, inactive.id] });
    expect(await t.db.selectFrom('forum_topics').select('id').where('title', '=', 'Tag check topic').executeTakeFirst()).toBeUndefined();
  });

  it('refuses a blocked word in the title, description or content with 400 CONTENT_MODERATED', async () => {
    const bodies = [
      { title: 'Cheap VIAGRA for drivers', content: 'Content long enough here.' },
      { title: 'Innocent title', description: 'best casino   bonus today', content: 'Content long enough here.' },
      { title: 'Innocent title', content: 'Get your free bitcoin now, drivers!' },
    ];
    for (const body of bodies) {
      const res = await t.call('createForumTopic', { token: agent, body });
      expect(res.status).toBe(400);
      expect(res.body.errors).toMatchObject({ code: 'CONTENT_MODERATED' });
    }
  });

  it('refuses a title or content that is too short once trimmed with 400', async () => {
    const res = await t.call('createForumTopic', { token: agent, body: { title: '   ab     ', content: 'Content long enough here.' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/title must NOT have fewer than 5 characters']);
    const short = await t.call('createForumTopic', { token: agent, body: { title: 'Good title', content: '  short    ' } });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual(['body/content must NOT have fewer than 10 characters']);
  });

  it('refuses unknown fields with 400', async () => {
    const res = await t.call('createForumTopic', {
      token: agent,
      payload: { title: 'Good title', content: 'Content long enough here.', status: 'CLOSED' },
    });
    expectInvalid(res, 'body/status is not an accepted field');
    const stored = await t.db.selectFrom('forum_topics').select('id').where('title', '=', 'Good title').execute();
    expect(stored).toEqual([]);
  });
});

describe('GET /trade/forum/topics', () => {
  it('lists visible topics with their tags and last visible message, hidden ones never', async () => {
    const topic = await newTopic(t, agent, { title: 'Listing check: Rosso border queue', tagIds: [tagIds[0]] });
    const reply = await newMessage(t, agent2, topic.id, null, 'Queue was three hours on Monday.');
    const hidden = await newTopic(t, agent, { title: 'Listing check: hidden topic' });
    await setTopic(t, hidden.id, { is_hidden: true });

    const res = await t.call('listForumTopics', { token: agent2, query: { search: 'listing check' } });
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([topic.id]);
    expect(res.body.result.data[0]).toMatchObject({
      id: topic.id,
      messagesCount: 2,
      tags: [{ id: tagIds[0] }],
      lastMessage: { id: reply.id, content: 'Queue was three hours on Monday.', author: { firstName: 'Karim', lastName: 'El Idrissi' } },
    });
    expect(res.body.result.meta).toEqual({ total: 1, current_page: 1, total_pages: 1, limit: 10, total_is_exact: true, next_cursor: null });
  });

  it('cuts the last message to 200 characters', async () => {
    const topic = await newTopic(t, agent, { title: 'Long last message topic' });
    await newMessage(t, agent, topic.id, null, 'x'.repeat(300));
    const res = await t.call('listForumTopics', { token: agent, query: { search: 'Long last message topic' } });
    expect(res.body.result.data[0]!.lastMessage!.content).toHaveLength(200);
  });

  it('filters by category, tag and status and searches title and content case-insensitively', async () => {
    const a = await newTopic(t, agent, { title: 'Filter alpha topic', categoryId: forumCategoryId, tagIds: [tagIds[1]] });
    const b = await newTopic(t, agent, { title: 'Filter beta topic', content: 'Mentions the word ZEBRACROSSING inside.' });
    await setTopic(t, b.id, { status: 'CLOSED' });

    const ids = async (query: Record<string, string | number>) => {
      const res = await t.call('listForumTopics', { token: agent, query: { limit: 50, ...query } });
      expect(res.status).toBe(200);
      return idsOf(res) as number[];
    };
    expect(await ids({ categoryId: forumCategoryId, search: 'Filter' })).toEqual([a.id]);
    expect(await ids({ tagId: tagIds[1]!, search: 'filter' })).toEqual([a.id]);
    expect(await ids({ status: 'CLOSED', search: 'filter' })).toEqual([b.id]);
    expect(await ids({ search: 'zebracrossing' })).toEqual([b.id]);
    expect(await ids({ search: 'filter' })).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(await ids({ categoryId: 999_999 })).toEqual([]);
    expect(await ids({ search: '100%_' })).toEqual([]);
  });

  it('sorts by popularity and by message count, and pages', async () => {
    const quiet = await newTopic(t, agent, { title: 'Sorting quiet topic' });
    const busy = await newTopic(t, agent, { title: 'Sorting busy topic' });
    await newMessage(t, agent2, busy.id);
    await newMessage(t, agent2, busy.id);
    const liked = await newTopic(t, agent, { title: 'Sorting liked topic' });
    await t.call('likeForumTopic', { token: agent2, params: { id: liked.id }, body: { action: 'LIKE' } });

    const order = async (sortBy: string, sortOrder = 'DESC') => {
      const res = await t.call('listForumTopics', { token: agent, query: { search: 'Sorting', sortBy, sortOrder } });
      return idsOf(res) as number[];
    };
    expect((await order('popularity'))[0]).toBe(liked.id);
    expect((await order('messages_count'))[0]).toBe(busy.id);
    expect(await order('recent')).toEqual([liked.id, busy.id, quiet.id]);
    expect(await order('recent', 'ASC')).toEqual([quiet.id, busy.id, liked.id]);

    const page2 = await t.call('listForumTopics', { token: agent, query: { search: 'Sorting', limit: 2, page: 2 } });
    expect(idsOf(page2)).toEqual([quiet.id]);
    expect(page2.body.result.meta).toEqual({
      total: 3,
      current_page: 2,
      total_pages: 2,
      limit: 2,
      total_is_exact: true,
      next_cursor: null,
    });
  });

  it('refuses a limit above 50 with 400', async () => {
    const res = await t.call('listForumTopics', { token: agent, query: { limit: 51 } });
    expectInvalid(res, 'querystring/limit must be <= 50');
  });
});

describe('GET /trade/forum/topics/{id}', () => {
  it('returns the topic with its message tree and counts a view once per user per day', async () => {
    const topic = await newTopic(t, agent);
    const reply = await newMessage(t, agent2, topic.id, await mainMessageId(t, topic.id), 'First reply here.');
    const nested = await newMessage(t, agent, topic.id, reply.id, 'Nested reply here.');

    const first = await t.call('getForumTopicById', { token: agent2, params: { id: topic.id } });
    expect(first.status).toBe(200);
    expect(first.body.result.viewsCount).toBe(1);
    expect(first.body.result.messages.map((m: { id: number; parentId: number | null }) => [m.id, m.parentId])).toEqual([
      [await mainMessageId(t, topic.id), null],
      [reply.id, await mainMessageId(t, topic.id)],
      [nested.id, reply.id],
    ]);
    expect(first.body.result.messages[0]).toMatchObject({ isMainMessage: true, repliesCount: 1, content: topic.content });
    const second = await t.call('getForumTopicById', { token: agent, params: { id: topic.id } });
    expect(second.body.result.viewsCount).toBe(2);
    const reload = await t.call('getForumTopicById', { token: agent2, params: { id: topic.id } });
    expect(reload.body.result.viewsCount).toBe(2);
    expect((await topicRow(t, topic.id))?.views_count).toBe(2);
  });

  it('counts parallel reads exactly: once per reader', async () => {
    const topic = await newTopic(t, agent);
    const tokens = [agent2, supervisor, agent2, supervisor, agent2, supervisor, agent2, supervisor];
    const reads = await Promise.all(tokens.map((token) => t.call('getForumTopicById', { token, params: { id: topic.id } })));
    expect(reads.every((r) => r.status === 200)).toBe(true);
    expect((await topicRow(t, topic.id))?.views_count).toBe(2);
  });

  it('answers 404 TOPIC_NOT_FOUND for an unknown or hidden topic without counting a view', async () => {
    const topic = await newTopic(t, agent);
    await setTopic(t, topic.id, { is_hidden: true });
    for (const id of [topic.id, 999_999]) {
      const res = await t.call('getForumTopicById', { token: supervisor, params: { id } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'TOPIC_NOT_FOUND', topicId: id });
    }
    expect((await topicRow(t, topic.id))?.views_count).toBe(0);
  });
});

describe('PATCH /trade/forum/topics/{id}', () => {
  it('lets the author change the fields sent; content changes the main message too', async () => {
    const topic = await newTopic(t, agent, { categoryId: forumCategoryId, tagIds });
    const res = await t.call('updateForumTopic', {
      token: agent,
      params: { id: topic.id },
      payload: { title: 'Renamed topic title', content: 'The new content of the topic.', categoryId: null, tagIds: [tagIds[1]] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      title: 'Renamed topic title',
      content: 'The new content of the topic.',
      description: '',
      category: null,
      tags: [{ id: tagIds[1] }],
    });
    expect(res.body.result.updatedAt >= res.body.result.createdAt).toBe(true);
    expect((await messageRow(t, await mainMessageId(t, topic.id))).content).toBe('The new content of the topic.');
  });

  it('lets a supervisor edit any topic', async () => {
    const topic = await newTopic(t, agent);
    const res = await t.call('updateForumTopic', { token: supervisor, params: { id: topic.id }, body: { description: 'Edited by staff' } });
    expect(res.status).toBe(200);
    expect(res.body.result.description).toBe('Edited by staff');
  });

  it('refuses another user with 403 FORBIDDEN', async () => {
    const topic = await newTopic(t, agent);
    const res = await t.call('updateForumTopic', { token: agent2, params: { id: topic.id }, body: { title: 'Hijacked title' } });
    expect(res.status).toBe(403);
    expect(res.body.errors).toMatchObject({ code: 'FORBIDDEN' });
    expect((await topicRow(t, topic.id))?.title).toBe(topic.title);
  });

  it('refuses a closed or archived topic with 409 TOPIC_CLOSED, also for supervisors', async () => {
    const topic = await newTopic(t, agent);
    await setTopic(t, topic.id, { status: 'ARCHIVED' });
    for (const token of [agent, supervisor]) {
      const res = await t.call('updateForumTopic', { token, params: { id: topic.id }, body: { title: 'New title here' } });
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual({ code: 'TOPIC_CLOSED', topicId: topic.id, status: 'ARCHIVED' });
    }
  });

  it('answers 404 for a hidden or unknown topic, an inactive category or unknown tags', async () => {
    const topic = await newTopic(t, agent);
    expect(
      (await t.call('updateForumTopic', { token: agent, params: { id: 999_999 }, body: { title: 'New title here' } })).body.errors,
    ).toEqual({
      code: 'TOPIC_NOT_FOUND',
      topicId: 999_999,
    });
    const category = await t.call('updateForumTopic', { token: agent, params: { id: topic.id }, body: { categoryId: 999_999 } });
    expect(category.status).toBe(404);
    expect(category.body.errors).toEqual({ code: 'CATEGORY_NOT_FOUND', categoryId: 999_999 });
    const tags = await t.call('updateForumTopic', { token: agent, params: { id: topic.id }, body: { tagIds: [777_777] } });
    expect(tags.status).toBe(404);
    expect(tags.body.errors).toEqual({ code: 'TAG_NOT_FOUND', tagIds: [777_777] });
    await setTopic(t, topic.id, { is_hidden: true });
    const hidden = await t.call('updateForumTopic', { token: agent, params: { id: topic.id }, body: { title: 'New title here' } });
    expect(hidden.status).toBe(404);
  });

  it('refuses blocked words with 400 CONTENT_MODERATED and an empty body with 400', async () => {
    const topic = await newTopic(t, agent);
    const res = await t.call('updateForumTopic', {
      token: agent,
      params: { id: topic.id },
      body: { content: 'Try our online casino tonight!' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toMatchObject({ code: 'CONTENT_MODERATED' });
    const empty = await t.call('updateForumTopic', { token: agent, params: { id: topic.id }, body: {} });
    expect(empty.status).toBe(400);
  });
});

describe('DELETE /trade/forum/topics/{id}', () => {
  it('lets the author delete the topic with its messages, votes, likes, subscriptions and reports', async () => {
    const topic = await newTopic(t, agent);
    const reply = await newMessage(t, agent2, topic.id);
    await t.call('voteForumMessage', { token: agent, params: { id: reply.id }, body: { action: 'LIKE' } });
    await t.call('reportForumMessage', { token: agent, params: { id: reply.id }, body: { reason: 'SPAM' } });
    await t.call('likeForumTopic', { token: agent2, params: { id: topic.id }, body: { action: 'LIKE' } });

    const res = await t.call('deleteForumTopic', { token: agent, params: { id: topic.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toBeNull();
    expect(await topicRow(t, topic.id)).toBeUndefined();
    expect(await t.db.selectFrom('forum_messages').select('id').where('topic_id', '=', topic.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('forum_votes').select('user_id').where('message_id', '=', reply.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('forum_reports').select('id').where('message_id', '=', reply.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('forum_topic_likes').select('user_id').where('topic_id', '=', topic.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('forum_subscriptions').select('user_id').where('topic_id', '=', topic.id).execute()).toEqual([]);
  });

  it('refuses another user with 403 FORBIDDEN', async () => {
    const topic = await newTopic(t, agent);
    const res = await t.call('deleteForumTopic', { token: agent2, params: { id: topic.id } });
    expect(res.status).toBe(403);
    expect(await topicRow(t, topic.id)).toBeDefined();
  });

  it('refuses the author on a closed topic with 409 TOPIC_CLOSED but lets a supervisor delete it, hidden too', async () => {
    const topic = await newTopic(t, agent);
    await setTopic(t, topic.id, { status: 'CLOSED' });
    const res = await t.call('deleteForumTopic', { token: agent, params: { id: topic.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'TOPIC_CLOSED', topicId: topic.id, status: 'CLOSED' });
    await setTopic(t, topic.id, { is_hidden: true });
    expect((await t.call('deleteForumTopic', { token: agent, params: { id: topic.id } })).status).toBe(404);
    expect((await t.call('deleteForumTopic', { token: supervisor, params: { id: topic.id } })).status).toBe(200);
    expect(await topicRow(t, topic.id)).toBeUndefined();
  });

  it('answers 404 TOPIC_NOT_FOUND for an unknown topic', async () => {
    const res = await t.call('deleteForumTopic', { token: supervisor, params: { id: 999_999 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TOPIC_NOT_FOUND', topicId: 999_999 });
  });
});
