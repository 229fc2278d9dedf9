import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';
import { mainMessageId, messageRow, newMessage, newTopic, setMessage, setTopic, topicRow, userId } from './helpers.js';

const t = useTestApp();
let agent: string;
let agent2: string;
let supervisor: string;

beforeAll(async () => {
  [agent, agent2, supervisor] = await Promise.all([t.token('agent'), t.token('agent2'), t.token('supervisor')]);
});

type Msg = { id: number; parentId: number | null; content: string; isDeleted: boolean; isHidden: boolean; repliesCount: number };
const messagesOf = async (topicId: number, token = agent2): Promise<Msg[]> => {
  const res = await t.call('getForumTopicById', { token, params: { id: topicId } });
  expect(res.status).toBe(200);
  return res.body.result.messages;
};

describe('POST /trade/forum/messages', () => {
  it('posts a top-level message and a reply, moving the topic and parent counters in the same transaction', async () => {
    const topic = await newTopic(t, agent);
    const before = await topicRow(t, topic.id);
    const top = await t.call('createForumMessage', { token: agent2, body: { topicId: topic.id, content: '  Top-level answer.  ' } });
    expect(top.status, JSON.stringify(top.body)).toBe(201);
    expect(top.body.result).toMatchObject({
      content: 'Top-level answer.',
      isMainMessage: false,
      likesCount: 0,
      dislikesCount: 0,
      repliesCount: 0,
      parentId: null,
      topic: { id: topic.id, title: topic.title },
      author: { id: await userId(t, 'agent2'), firstName: 'Karim', lastName: 'El Idrissi', avatar: null },
      userVote: null,
      isDeleted: false,
      isHidden: false,
    });
    expect(top.body.result.updatedAt).toBe(top.body.result.createdAt);

    const reply = await newMessage(t, agent, topic.id, top.body.result.id, 'A reply to the answer.');
    expect(reply.parentId).toBe(top.body.result.id);
    const after = await topicRow(t, topic.id);
    expect(after?.messages_count).toBe(3);
    expect(after!.last_message_at.getTime()).toBeGreaterThan(before!.last_message_at.getTime());
    expect(after!.last_message_at.toISOString()).toBe(reply.createdAt);
    expect((await messageRow(t, top.body.result.id)).replies_count).toBe(1);
    const read = await t.call('getForumMessageById', { token: agent, params: { id: top.body.result.id } });
    expect(read.body.result.repliesCount).toBe(1);
  });

  it('keeps messagesCount exact under parallel posts', async () => {
    const topic = await newTopic(t, agent);
    const posts = await Promise.all(
      [agent, agent2, supervisor, agent, agent2].map((token, i) =>
        t.call('createForumMessage', { token, body: { topicId: topic.id, content: `Parallel post ${i}` } }),
      ),
    );
    expect(posts.map((p) => p.status)).toEqual([201, 201, 201, 201, 201]);
    expect((await topicRow(t, topic.id))?.messages_count).toBe(6);
  });

  it('answers 404 TOPIC_NOT_FOUND for an unknown or hidden topic', async () => {
    const topic = await newTopic(t, agent);
    await setTopic(t, topic.id, { is_hidden: true });
    for (const topicId of [topic.id, 999_999]) {
      const res = await t.call('createForumMessage', { token: agent, body: { topicId, content: 'Hello there' } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'TOPIC_NOT_FOUND', topicId });
    }
  });

  it('refuses closed and archived topics with 409 TOPIC_CLOSED', async () => {
    for (const status of ['CLOSED', 'ARCHIVED'] as const) {
      const topic = await newTopic(t, agent);
      await setTopic(t, topic.id, { status });
      const res = await t.call('createForumMessage', { token: supervisor, body: { topicId: topic.id, content: 'Too late now' } });
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual({ code: 'TOPIC_CLOSED', topicId: topic.id, status });
      expect((await topicRow(t, topic.id))?.messages_count).toBe(1);
    }
  });

  it('answers 404 MESSAGE_NOT_FOUND for a parent of another topic, a deleted or a hidden parent', async () => {
    const topic = await newTopic(t, agent);
    const other = await newTopic(t, agent);
    const foreign = await newMessage(t, agent, other.id);
    const deleted = await newMessage(t, agent, topic.id);
    await t.call('deleteForumMessage', { token: agent, params: { id: deleted.id } });
    const hidden = await newMessage(t, agent, topic.id);
    await setMessage(t, hidden.id, { is_hidden: true });
    for (const parentId of [foreign.id, deleted.id, hidden.id, 999_999]) {
      const res = await t.call('createForumMessage', { token: agent2, body: { topicId: topic.id, content: 'Orphan reply', parentId } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: parentId });
    }
  });

  it('refuses blocked words with 400 CONTENT_MODERATED and short content with 400', async () => {
    const topic = await newTopic(t, agent);
    const res = await t.call('createForumMessage', {
      token: agent2,
      body: { topicId: topic.id, content: 'Cheap Cialis and payday loan offers' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ code: 'CONTENT_MODERATED', reason: 'The content contains a blocked word' });
    const short = await t.call('createForumMessage', { token: agent2, body: { topicId: topic.id, content: '  a   ' } });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual(['body/content must NOT have fewer than 3 characters']);
    expect((await topicRow(t, topic.id))?.messages_count).toBe(1);
  });
});

describe('GET /trade/forum/messages/{id}', () => {
  it('returns a message with the caller’s vote', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent2, topic.id, null, 'Vote on me please.');
    await t.call('voteForumMessage', { token: agent, params: { id: message.id }, body: { action: 'DISLIKE' } });
    const res = await t.call('getForumMessageById', { token: agent, params: { id: message.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: message.id, content: 'Vote on me please.', dislikesCount: 1, userVote: 'DISLIKE' });
    const other = await t.call('getForumMessageById', { token: supervisor, params: { id: message.id } });
    expect(other.body.result.userVote).toBeNull();
  });

  it('shows a deleted or hidden message with visible replies as its placeholder, and 404 without', async () => {
    const topic = await newTopic(t, agent);
    const withReply = await newMessage(t, agent2, topic.id, null, 'Original text A.');
    await newMessage(t, agent, topic.id, withReply.id, 'Reply to A.');
    const hiddenWithReply = await newMessage(t, agent2, topic.id, null, 'Original text B.');
    await newMessage(t, agent, topic.id, hiddenWithReply.id, 'Reply to B.');
    const lonely = await newMessage(t, agent2, topic.id, null, 'Original text C.');

    await t.call('deleteForumMessage', { token: agent2, params: { id: withReply.id } });
    await setMessage(t, hiddenWithReply.id, { is_hidden: true });
    await setMessage(t, lonely.id, { is_hidden: true });

    const deleted = await t.call('getForumMessageById', { token: agent, params: { id: withReply.id } });
    expect(deleted.body.result).toMatchObject({ content: '[deleted]', isDeleted: true, isHidden: false, repliesCount: 1 });
    const hidden = await t.call('getForumMessageById', { token: agent, params: { id: hiddenWithReply.id } });
    expect(hidden.body.result).toMatchObject({ content: '[hidden by moderator]', isDeleted: false, isHidden: true });
    const gone = await t.call('getForumMessageById', { token: agent, params: { id: lonely.id } });
    expect(gone.status).toBe(404);
    expect(gone.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: lonely.id });
  });

  it('answers 404 for a message of a hidden topic and for an unknown id', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id);
    await setTopic(t, topic.id, { is_hidden: true });
    const hidden = await t.call('getForumMessageById', { token: supervisor, params: { id: message.id } });
    expectError(hidden, 404, 'MESSAGE_NOT_FOUND', { messageId: message.id });
    const unknown = await t.call('getForumMessageById', { token: agent, params: { id: 999_999 } });
    expectError(unknown, 404, 'MESSAGE_NOT_FOUND', { messageId: 999_999 });
  });
});

describe('PATCH /trade/forum/messages/{id}', () => {
  it('lets the author edit the content; updatedAt records the edit', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent2, topic.id, null, 'Fist version.');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await t.call('updateForumMessage', {
      token: agent2,
      params: { id: message.id },
      body: { content: 'First version, fixed.' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({ id: message.id, content: 'First version, fixed.' });
    expect(res.body.result.updatedAt > res.body.result.createdAt).toBe(true);
  });

  it('lets a supervisor edit and refuses another user with 403 FORBIDDEN', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id, null, 'Written by agent.');
    const denied = await t.call('updateForumMessage', {
      token: agent2,
      params: { id: message.id },
      body: { content: 'Changed by agent2' },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.errors).toMatchObject({ code: 'FORBIDDEN' });
    expect((await messageRow(t, message.id)).content).toBe('Written by agent.');
    const staff = await t.call('updateForumMessage', {
      token: supervisor,
      params: { id: message.id },
      body: { content: 'Moderated wording' },
    });
    expect(staff.status).toBe(200);
  });

  it('refuses the main message with 409 NOT_EDITABLE and a closed topic with 409 TOPIC_CLOSED', async () => {
    const topic = await newTopic(t, agent);
    const main = await mainMessageId(t, topic.id);
    const res = await t.call('updateForumMessage', { token: agent, params: { id: main }, body: { content: 'New main text' } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'forum_message', id: main, status: 'MAIN_MESSAGE' });

    const message = await newMessage(t, agent, topic.id);
    await setTopic(t, topic.id, { status: 'CLOSED' });
    const closed = await t.call('updateForumMessage', { token: supervisor, params: { id: message.id }, body: { content: 'Late edit' } });
    expect(closed.status).toBe(409);
    expect(closed.body.errors).toEqual({ code: 'TOPIC_CLOSED', topicId: topic.id, status: 'CLOSED' });
  });

  it('answers 404 for a deleted or hidden message and 400 CONTENT_MODERATED for blocked words', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id);
    const moderated = await t.call('updateForumMessage', {
      token: agent,
      params: { id: message.id },
      body: { content: 'buy followers here' },
    });
    expect(moderated.status).toBe(400);
    expect(moderated.body.errors).toMatchObject({ code: 'CONTENT_MODERATED' });
    await setMessage(t, message.id, { is_hidden: true });
    const hidden = await t.call('updateForumMessage', { token: agent, params: { id: message.id }, body: { content: 'Edit hidden' } });
    expect(hidden.status).toBe(404);
    expect(hidden.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: message.id });
  });
});

describe('DELETE /trade/forum/messages/{id}', () => {
  it('removes a message without replies from the tree and lowers the counters', async () => {
    const topic = await newTopic(t, agent);
    const main = await mainMessageId(t, topic.id);
    const reply = await newMessage(t, agent2, topic.id, main);
    const res = await t.call('deleteForumMessage', { token: agent2, params: { id: reply.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toBeNull();
    expect((await messageRow(t, reply.id)).deleted_at).not.toBeNull(); // soft delete keeps reports traceable
    expect((await topicRow(t, topic.id))?.messages_count).toBe(1);
    expect((await messageRow(t, main)).replies_count).toBe(0);
    expect((await messagesOf(topic.id)).map((m) => m.id)).toEqual([main]);
    const again = await t.call('deleteForumMessage', { token: agent2, params: { id: reply.id } });
    expect(again.status).toBe(404);
  });

  it('keeps a message with replies as a [deleted] placeholder, and drops it with its last reply', async () => {
    const topic = await newTopic(t, agent);
    const main = await mainMessageId(t, topic.id);
    const parent = await newMessage(t, agent2, topic.id, main, 'Parent text.');
    const child = await newMessage(t, agent, topic.id, parent.id, 'Child text.');

    expect((await t.call('deleteForumMessage', { token: agent2, params: { id: parent.id } })).status).toBe(200);
    let tree = await messagesOf(topic.id);
    expect(tree.map((m) => [m.id, m.content, m.isDeleted])).toEqual([
      [main, expect.any(String), false],
      [parent.id, '[deleted]', true],
      [child.id, 'Child text.', false],
    ]);
    expect((await messageRow(t, main)).replies_count).toBe(1);
    expect((await topicRow(t, topic.id))?.messages_count).toBe(2);

    expect((await t.call('deleteForumMessage', { token: agent, params: { id: child.id } })).status).toBe(200);
    tree = await messagesOf(topic.id);
    expect(tree.map((m) => m.id)).toEqual([main]);
    expect(tree[0]!.repliesCount).toBe(0);
    expect((await messageRow(t, main)).replies_count).toBe(0);
    expect((await topicRow(t, topic.id))?.messages_count).toBe(1);
  });

  it('refuses another user with 403 and the main message with 409 NOT_EDITABLE', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent, topic.id);
    const denied = await t.call('deleteForumMessage', { token: agent2, params: { id: message.id } });
    expect(denied.status).toBe(403);
    expect((await messageRow(t, message.id)).deleted_at).toBeNull();
    const main = await mainMessageId(t, topic.id);
    const res = await t.call('deleteForumMessage', { token: agent, params: { id: main } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'forum_message', id: main, status: 'MAIN_MESSAGE' });
  });

  it('refuses the author in a closed topic with 409 TOPIC_CLOSED but lets a supervisor delete', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent2, topic.id);
    await setTopic(t, topic.id, { status: 'ARCHIVED' });
    const res = await t.call('deleteForumMessage', { token: agent2, params: { id: message.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'TOPIC_CLOSED', topicId: topic.id, status: 'ARCHIVED' });
    expect((await t.call('deleteForumMessage', { token: supervisor, params: { id: message.id } })).status).toBe(200);
  });

  it('keeps the tree consistent when replies and the delete of their parent race', async () => {
    for (let round = 0; round < 3; round += 1) {
      const topic = await newTopic(t, agent);
      const parent = await newMessage(t, agent2, topic.id);
      const [reply1, del, reply2] = await Promise.all([
        t.call('createForumMessage', { token: agent, body: { topicId: topic.id, content: 'Racing reply 1', parentId: parent.id } }),
        t.call('deleteForumMessage', { token: agent2, params: { id: parent.id } }),
        t.call('createForumMessage', { token: supervisor, body: { topicId: topic.id, content: 'Racing reply 2', parentId: parent.id } }),
      ]);
      expect(del.status).toBe(200);
      const replies = [reply1, reply2].filter((r) => r.status === 201);
      expect([reply1, reply2].every((r) => r.status === 201 || r.status === 404)).toBe(true);
      const tree = await messagesOf(topic.id);
      // A reply that got in keeps the parent as a placeholder; otherwise the parent is gone.
      expect(tree.some((m) => m.id === parent.id && m.isDeleted)).toBe(replies.length > 0);
      expect((await topicRow(t, topic.id))?.messages_count).toBe(1 + replies.length);
    }
  });

  it('deletes once when the author sends two deletes at the same time', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent2, topic.id);
    const results = await Promise.all([1, 2].map(() => t.call('deleteForumMessage', { token: agent2, params: { id: message.id } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
    expect((await topicRow(t, topic.id))?.messages_count).toBe(1);
  });
});

describe('GET /trade/forum/topics/{id}/messages and /trade/forum/messages/{id}/replies', () => {
  it('pages the whole thread oldest first, or the direct replies of one message', async () => {
    const topic = await newTopic(t, agent);
    const main = await mainMessageId(t, topic.id);
    const a = await newMessage(t, agent2, topic.id, main, 'Reply A');
    const b = await newMessage(t, agent, topic.id, main, 'Reply B');
    const a1 = await newMessage(t, agent, topic.id, a.id, 'Reply A1');

    const all = await t.call('listTopicMessages', { token: agent, params: { id: topic.id } });
    expect(all.status).toBe(200);
    expect(all.body.result.data.map((m: Msg) => m.id)).toEqual([main, a.id, b.id, a1.id]);
    expect(all.body.result.meta).toEqual({ total: 4, current_page: 1, total_pages: 1, limit: 20 });

    const page = await t.call('listTopicMessages', { token: agent, params: { id: topic.id }, query: { limit: 3, page: 2 } });
    expect(page.body.result.data.map((m: Msg) => m.id)).toEqual([a1.id]);

    const direct = await t.call('listTopicMessages', { token: agent, params: { id: topic.id }, query: { parentId: main } });
    expect(direct.body.result.data.map((m: Msg) => m.id)).toEqual([a.id, b.id]);

    const replies = await t.call('listMessageReplies', { token: agent, params: { id: a.id } });
    expect(replies.status).toBe(200);
    expect(replies.body.result.data.map((m: Msg) => m.id)).toEqual([a1.id]);
    expect(replies.body.result.meta.total).toBe(1);
    expect((await topicRow(t, topic.id))?.views_count).toBe(0); // reading messages is not a view
  });

  it('lists a deleted message with replies as a placeholder and leaves hidden leaves out', async () => {
    const topic = await newTopic(t, agent);
    const main = await mainMessageId(t, topic.id);
    const a = await newMessage(t, agent2, topic.id, main, 'Reply A');
    const a1 = await newMessage(t, agent, topic.id, a.id, 'Reply A1');
    const a2 = await newMessage(t, agent, topic.id, a.id, 'Reply A2');
    await t.call('deleteForumMessage', { token: agent2, params: { id: a.id } });
    await setMessage(t, a2.id, { is_hidden: true });

    const replies = await t.call('listMessageReplies', { token: agent, params: { id: a.id } });
    expect(replies.status).toBe(200);
    expect(replies.body.result.data.map((m: Msg) => m.id)).toEqual([a1.id]);
    const all = await t.call('listTopicMessages', { token: agent, params: { id: topic.id } });
    expect(all.body.result.data.map((m: Msg) => [m.id, m.content])).toEqual([
      [main, expect.any(String)],
      [a.id, '[deleted]'],
      [a1.id, 'Reply A1'],
    ]);
  });

  it('answers 404 for a hidden topic, a parentId of another topic and an invisible message', async () => {
    const topic = await newTopic(t, agent);
    const other = await newTopic(t, agent);
    const foreign = await mainMessageId(t, other.id);
    const res = await t.call('listTopicMessages', { token: agent, params: { id: topic.id }, query: { parentId: foreign } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: foreign });

    const lonely = await newMessage(t, agent, topic.id);
    await t.call('deleteForumMessage', { token: agent, params: { id: lonely.id } });
    const replies = await t.call('listMessageReplies', { token: agent, params: { id: lonely.id } });
    expect(replies.status).toBe(404);
    expect(replies.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: lonely.id });

    await setTopic(t, topic.id, { is_hidden: true });
    const hidden = await t.call('listTopicMessages', { token: agent, params: { id: topic.id } });
    expect(hidden.status).toBe(404);
    expect(hidden.body.errors).toEqual({ code: 'TOPIC_NOT_FOUND', topicId: topic.id });
  });
});
