import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { mainMessageId, messageRow, newMessage, newTopic, setMessage, setTopic, topicRow, userId } from './helpers.js';

const t = useTestApp();
let agent: string;
let agent2: string;
let manager: string;
let supervisor: string;
let admin: string;

beforeAll(async () => {
  [agent, agent2, manager, supervisor, admin] = await Promise.all([
    t.token('agent'),
    t.token('agent2'),
    t.token('manager'),
    t.token('supervisor'),
    t.token('admin'),
  ]);
});

const votesOn = async (messageId: number) =>
  t.db.selectFrom('forum_votes').select(['user_id', 'vote']).where('message_id', '=', messageId).execute();

describe('POST /trade/forum/messages/{id}/like', () => {
  it('records a LIKE and a DISLIKE with their counters and the caller’s vote', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id);
    const like = await t.call('voteForumMessage', { token: agent2, params: { id: message.id }, body: { action: 'LIKE' } });
    expect(like.status, JSON.stringify(like.body)).toBe(200);
    expect(like.body.result).toEqual({ messageId: message.id, action: 'LIKE', likesCount: 1, dislikesCount: 0, userVote: 'LIKE' });
    const dislike = await t.call('voteForumMessage', { token: manager, params: { id: message.id }, body: { action: 'DISLIKE' } });
    expect(dislike.body.result).toEqual({ messageId: message.id, action: 'DISLIKE', likesCount: 1, dislikesCount: 1, userVote: 'DISLIKE' });
    expect(await votesOn(message.id)).toHaveLength(2);
    const stored = await messageRow(t, message.id);
    expect([stored.likes_count, stored.dislikes_count]).toEqual([1, 1]);
    expect(stored.updated_at.getTime()).toBe(stored.created_at.getTime()); // a vote is not an edit
  });

  it('refuses a second vote, either way, with 409 VOTE_ALREADY_EXISTS and the current vote', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id);
    await t.call('voteForumMessage', { token: agent2, params: { id: message.id }, body: { action: 'DISLIKE' } });
    for (const action of ['LIKE', 'DISLIKE'] as const) {
      const res = await t.call('voteForumMessage', { token: agent2, params: { id: message.id }, body: { action } });
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual({ code: 'VOTE_ALREADY_EXISTS', messageId: message.id, currentVote: 'DISLIKE' });
    }
    const stored = await messageRow(t, message.id);
    expect([stored.likes_count, stored.dislikes_count]).toEqual([0, 1]);
  });

  it('removes the vote with REMOVE, and answers 200 with userVote null when there is none', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id);
    await t.call('voteForumMessage', { token: agent2, params: { id: message.id }, body: { action: 'LIKE' } });
    const removed = await t.call('voteForumMessage', { token: agent2, params: { id: message.id }, body: { action: 'REMOVE' } });
    expect(removed.status).toBe(200);
    expect(removed.body.result).toEqual({ messageId: message.id, action: 'REMOVE', likesCount: 0, dislikesCount: 0, userVote: null });
    expect(await votesOn(message.id)).toEqual([]);
    const again = await t.call('voteForumMessage', { token: agent2, params: { id: message.id }, body: { action: 'REMOVE' } });
    expect(again.status).toBe(200);
    expect(again.body.result.userVote).toBeNull();
    const changed = await t.call('voteForumMessage', { token: agent2, params: { id: message.id }, body: { action: 'DISLIKE' } });
    expect(changed.body.result).toMatchObject({ likesCount: 0, dislikesCount: 1, userVote: 'DISLIKE' });
  });

  it('refuses a vote on one’s own message with 403 CANNOT_VOTE_OWN_MESSAGE', async () => {
    const topic = await newTopic(t, agent);
    const main = await mainMessageId(t, topic.id);
    const res = await t.call('voteForumMessage', { token: agent, params: { id: main }, body: { action: 'LIKE' } });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'CANNOT_VOTE_OWN_MESSAGE', messageId: main });
    expect(await votesOn(main)).toEqual([]);
  });

  it('answers 404 MESSAGE_NOT_FOUND for deleted, hidden, placeholder, hidden-topic and unknown messages', async () => {
    const topic = await newTopic(t, agent);
    const deleted = await newMessage(t, agent, topic.id);
    await t.call('deleteForumMessage', { token: agent, params: { id: deleted.id } });
    const hidden = await newMessage(t, agent, topic.id);
    await setMessage(t, hidden.id, { is_hidden: true });
    const placeholder = await newMessage(t, agent, topic.id);
    await newMessage(t, agent2, topic.id, placeholder.id);
    await t.call('deleteForumMessage', { token: agent, params: { id: placeholder.id } });
    const hiddenTopic = await newTopic(t, agent);
    await setTopic(t, hiddenTopic.id, { is_hidden: true });
    const inHiddenTopic = await mainMessageId(t, hiddenTopic.id);
    for (const id of [deleted.id, hidden.id, placeholder.id, inHiddenTopic, 999_999]) {
      const res = await t.call('voteForumMessage', { token: agent2, params: { id }, body: { action: 'LIKE' } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: id });
    }
  });

  it('accepts votes in closed topics', async () => {
    const topic = await newTopic(t, agent);
    await setTopic(t, topic.id, { status: 'CLOSED' });
    const main = await mainMessageId(t, topic.id);
    const res = await t.call('voteForumMessage', { token: agent2, params: { id: main }, body: { action: 'LIKE' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toEqual({ messageId: main, action: 'LIKE', likesCount: 1, dislikesCount: 0, userVote: 'LIKE' });
    expect(await votesOn(main)).toEqual([{ user_id: await userId(t, 'agent2'), vote: 'LIKE' }]);
  });

  it('accepts exactly one of 10 parallel LIKEs by the same user: one 200, nine 409, likesCount 1', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t.call('voteForumMessage', { token: agent2, params: { id: message.id }, body: { action: 'LIKE' } })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    for (const r of results.filter((r) => r.status === 409)) {
      expect(r.body.errors).toEqual({ code: 'VOTE_ALREADY_EXISTS', messageId: message.id, currentVote: 'LIKE' });
    }
    expect(await votesOn(message.id)).toEqual([{ user_id: await userId(t, 'agent2'), vote: 'LIKE' }]);
    expect((await messageRow(t, message.id)).likes_count).toBe(1);
  });

  it('keeps likesCount exact when different users like the same message in parallel', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id);
    const voters = [agent2, manager, supervisor, admin];
    const results = await Promise.all(
      voters.map((token) => t.call('voteForumMessage', { token, params: { id: message.id }, body: { action: 'LIKE' } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await messageRow(t, message.id)).likes_count).toBe(4);
    expect(await votesOn(message.id)).toHaveLength(4);

    await Promise.all(voters.map((token) => t.call('voteForumMessage', { token, params: { id: message.id }, body: { action: 'REMOVE' } })));
    expect((await messageRow(t, message.id)).likes_count).toBe(0);
  });
});

describe('POST /trade/forum/topics/{id}/like', () => {
  it('likes and unlikes a topic idempotently, authors included', async () => {
    const topic = await newTopic(t, agent);
    const like = await t.call('likeForumTopic', { token: agent, params: { id: topic.id }, body: { action: 'LIKE' } });
    expect(like.status).toBe(200);
    expect(like.body.result).toEqual({ topicId: topic.id, action: 'LIKE', likesCount: 1, userLiked: true });
    const twice = await t.call('likeForumTopic', { token: agent, params: { id: topic.id }, body: { action: 'LIKE' } });
    expect(twice.body.result).toEqual({ topicId: topic.id, action: 'LIKE', likesCount: 1, userLiked: true });
    const detail = await t.call('getForumTopicById', { token: agent, params: { id: topic.id } });
    expect(detail.body.result.userLiked).toBe(true);

    const remove = await t.call('likeForumTopic', { token: agent, params: { id: topic.id }, body: { action: 'REMOVE' } });
    expect(remove.body.result).toEqual({ topicId: topic.id, action: 'REMOVE', likesCount: 0, userLiked: false });
    const removeAgain = await t.call('likeForumTopic', { token: agent, params: { id: topic.id }, body: { action: 'REMOVE' } });
    expect(removeAgain.body.result.likesCount).toBe(0);
    expect((await topicRow(t, topic.id))?.likes_count).toBe(0);
  });

  it('counts parallel likes exactly: same user once, different users each', async () => {
    const topic = await newTopic(t, agent);
    const same = await Promise.all(
      Array.from({ length: 6 }, () => t.call('likeForumTopic', { token: agent2, params: { id: topic.id }, body: { action: 'LIKE' } })),
    );
    expect(same.every((r) => r.status === 200)).toBe(true);
    expect((await topicRow(t, topic.id))?.likes_count).toBe(1);
    await Promise.all(
      [agent, manager, supervisor, admin].map((token) =>
        t.call('likeForumTopic', { token, params: { id: topic.id }, body: { action: 'LIKE' } }),
      ),
    );
    expect((await topicRow(t, topic.id))?.likes_count).toBe(5);
    const rows = await t.db.selectFrom('forum_topic_likes').select('user_id').where('topic_id', '=', topic.id).execute();
    expect(rows).toHaveLength(5);
  });

  it('answers 404 TOPIC_NOT_FOUND for a hidden or unknown topic and accepts closed ones', async () => {
    const topic = await newTopic(t, agent);
    await setTopic(t, topic.id, { status: 'ARCHIVED' });
    expect((await t.call('likeForumTopic', { token: agent2, params: { id: topic.id }, body: { action: 'LIKE' } })).status).toBe(200);
    await setTopic(t, topic.id, { is_hidden: true });
    for (const id of [topic.id, 999_999]) {
      const res = await t.call('likeForumTopic', { token: agent2, params: { id }, body: { action: 'LIKE' } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'TOPIC_NOT_FOUND', topicId: id });
    }
  });
});
