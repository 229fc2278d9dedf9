import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectUnauthenticated } from '../../support/expect.js';
import { addMessage, createTopic, deleteAsPlaceholder, deleteMessage, messageRow, topicRow, userId } from './fixtures.js';

const t = useTestApp();
let supervisor: string;
let agentId: number;
let agent2Id: number;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
  agentId = await userId(t.db, 'agent');
  agent2Id = await userId(t.db, 'agent2');
});

const moderateTopic = (id: number, body: object, token = supervisor) =>
  t.call('moderateForumTopic', { params: { id }, payload: body, token });
const moderateMessage = (id: number, body: object, token = supervisor) =>
  t.call('moderateForumMessage', { params: { id }, payload: body, token });

describe('POST /admin/forum/topics/{id}/moderate', () => {
  it('closes an ACTIVE topic and reports the moderator, the reason and the new state', async () => {
    const { topicId } = await createTopic(t.db, agentId);
    const res = await moderateTopic(topicId, { action: 'CLOSE', reason: 'Answered.' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('Topic closed');
    expect(res.body.result).toMatchObject({
      topicId,
      action: 'CLOSE',
      status: 'CLOSED',
      isHidden: false,
      reason: 'Answered.',
      moderatedBy: { id: await userId(t.db, 'supervisor'), name: 'Moussa Diop' },
    });
    expect(Date.parse(res.body.result.moderatedAt)).not.toBeNaN();
    expect((await topicRow(t.db, topicId)).status).toBe('CLOSED');
  });

  it('follows the status table: ARCHIVE from ACTIVE or CLOSED, REOPEN from CLOSED or ARCHIVED', async () => {
    const { topicId } = await createTopic(t.db, agentId);
    const archived = await moderateTopic(topicId, { action: 'ARCHIVE' });
    expect(archived.status).toBe(200);
    expect(archived.body.result).toMatchObject({ status: 'ARCHIVED', reason: null });
    const reopened = await moderateTopic(topicId, { action: 'REOPEN' });
    expect(reopened.body.result.status).toBe('ACTIVE');
    await moderateTopic(topicId, { action: 'CLOSE' });
    const archivedFromClosed = await moderateTopic(topicId, { action: 'ARCHIVE' });
    expect(archivedFromClosed.body.result.status).toBe('ARCHIVED');
    const reopenedFromArchived = await moderateTopic(topicId, { action: 'REOPEN' });
    expect(reopenedFromArchived.body.result.status).toBe('ACTIVE');
    expect((await topicRow(t.db, topicId)).status).toBe('ACTIVE');
  });

  it('refuses CLOSE on a CLOSED topic with 409 INVALID_STATUS_TRANSITION and the actions offered', async () => {
    const { topicId } = await createTopic(t.db, agentId, { status: 'CLOSED' });
    const res = await moderateTopic(topicId, { action: 'CLOSE' });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({
      code: 'INVALID_STATUS_TRANSITION',
      currentStatus: 'CLOSED',
      requested: 'CLOSE',
      allowed: ['REOPEN', 'ARCHIVE', 'HIDE', 'UNHIDE'],
    });
    expect((await topicRow(t.db, topicId)).status).toBe('CLOSED');
  });

  it('refuses REOPEN on an ACTIVE topic and ARCHIVE on an ARCHIVED one', async () => {
    const { topicId: active } = await createTopic(t.db, agentId);
    const reopen = await moderateTopic(active, { action: 'REOPEN' });
    expect(reopen.status).toBe(409);
    expect(reopen.body.errors).toMatchObject({
      currentStatus: 'ACTIVE',
      requested: 'REOPEN',
      allowed: ['CLOSE', 'ARCHIVE', 'HIDE', 'UNHIDE'],
    });
    const { topicId: archived } = await createTopic(t.db, agentId, { status: 'ARCHIVED' });
    const archive = await moderateTopic(archived, { action: 'ARCHIVE' });
    expect(archive.status).toBe(409);
    expect(archive.body.errors).toMatchObject({ currentStatus: 'ARCHIVED', requested: 'ARCHIVE', allowed: ['REOPEN', 'HIDE', 'UNHIDE'] });
  });

  it('hides and unhides a topic in any status, idempotently, without changing its status', async () => {
    const { topicId } = await createTopic(t.db, agentId, { status: 'ARCHIVED' });
    const hidden = await moderateTopic(topicId, { action: 'HIDE', reason: 'Spam thread' });
    expect(hidden.status).toBe(200);
    expect(hidden.body.result).toMatchObject({ action: 'HIDE', status: 'ARCHIVED', isHidden: true, reason: 'Spam thread' });
    const again = await moderateTopic(topicId, { action: 'HIDE' });
    expect(again.status).toBe(200);
    expect(again.body.result.isHidden).toBe(true);
    expect(await topicRow(t.db, topicId)).toMatchObject({ is_hidden: true, status: 'ARCHIVED' });
    const shown = await moderateTopic(topicId, { action: 'UNHIDE' });
    expect(shown.body.result).toMatchObject({ isHidden: false, status: 'ARCHIVED' });
    expect((await topicRow(t.db, topicId)).is_hidden).toBe(false);
  });

  it('moderates a hidden topic too', async () => {
    const { topicId } = await createTopic(t.db, agentId);
    await moderateTopic(topicId, { action: 'HIDE' });
    const res = await moderateTopic(topicId, { action: 'CLOSE' });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ status: 'CLOSED', isHidden: true });
  });

  it('lets exactly one of two concurrent CLOSE actions win', async () => {
    const { topicId } = await createTopic(t.db, agentId);
    const results = await Promise.all([moderateTopic(topicId, { action: 'CLOSE' }), moderateTopic(topicId, { action: 'CLOSE' })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await topicRow(t.db, topicId)).status).toBe('CLOSED');
  });

  it('answers 404 TOPIC_NOT_FOUND for an unknown topic', async () => {
    const res = await moderateTopic(999999, { action: 'HIDE' });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TOPIC_NOT_FOUND', topicId: 999999 });
  });

  it('refuses agents and team managers with 403 FORBIDDEN and lets administrators moderate', async () => {
    const { topicId } = await createTopic(t.db, agentId);
    for (const user of ['agent', 'manager'] as const) {
      const res = await moderateTopic(topicId, { action: 'CLOSE' }, await t.token(user));
      expect(res.status).toBe(403);
      expect(res.body.errors.code).toBe('FORBIDDEN');
    }
    expect((await topicRow(t.db, topicId)).status).toBe('ACTIVE');
    const admin = await moderateTopic(topicId, { action: 'CLOSE' }, await t.token('admin'));
    expect(admin.status).toBe(200);
    expect(admin.body.result.moderatedBy.name).toBe('Claire Dubois');
  });

  it('answers 401 without a token', async () => {
    const before = await topicRow(t.db, 1);
    const res = await t.call('moderateForumTopic', { params: { id: 1 }, body: { action: 'HIDE' } });
    expectUnauthenticated(res);
    expect(await topicRow(t.db, 1)).toEqual(before);
  });
});

describe('POST /admin/forum/messages/{id}/moderate', () => {
  it('hides a reply without replies: it leaves the topic count and the parent count, once even when repeated', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const reply = await addMessage(t.db, topicId, agent2Id, { parentId: mainId });
    expect((await topicRow(t.db, topicId)).messages_count).toBe(2);
    const res = await moderateMessage(reply, { action: 'HIDE', reason: 'Advertising' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('Message hidden');
    expect(res.body.result).toMatchObject({
      messageId: reply,
      topicId,
      action: 'HIDE',
      isHidden: true,
      reason: 'Advertising',
      moderatedBy: { name: 'Moussa Diop' },
    });
    expect((await messageRow(t.db, reply)).is_hidden).toBe(true);
    expect((await topicRow(t.db, topicId)).messages_count).toBe(1);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(0);
    // Hiding is not an edit: updatedAt of the message and of its parent stays their creation time.
    const times = await t.db.selectFrom('forum_messages').select(['created_at', 'updated_at']).where('id', 'in', [reply, mainId]).execute();
    for (const row of times) expect(row.updated_at.getTime()).toBe(row.created_at.getTime());

    const again = await moderateMessage(reply, { action: 'HIDE' });
    expect(again.status).toBe(200);
    expect(again.body.result.isHidden).toBe(true);
    expect((await topicRow(t.db, topicId)).messages_count).toBe(1);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(0);

    const shown = await moderateMessage(reply, { action: 'UNHIDE' });
    expect(shown.status).toBe(200);
    expect(shown.body.result).toMatchObject({ action: 'UNHIDE', isHidden: false, reason: null });
    expect((await messageRow(t.db, reply)).is_hidden).toBe(false);
    expect((await topicRow(t.db, topicId)).messages_count).toBe(2);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(1);

    const shownAgain = await moderateMessage(reply, { action: 'UNHIDE' });
    expect(shownAgain.status).toBe(200);
    expect((await topicRow(t.db, topicId)).messages_count).toBe(2);
  });

  it('keeps the parent count of a hidden message that has visible replies (it stays as a placeholder)', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const middle = await addMessage(t.db, topicId, agent2Id, { parentId: mainId });
    await addMessage(t.db, topicId, agentId, { parentId: middle });
    const res = await moderateMessage(middle, { action: 'HIDE' });
    expect(res.status).toBe(200);
    expect((await topicRow(t.db, topicId)).messages_count).toBe(2);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(1);
    expect((await messageRow(t.db, middle)).replies_count).toBe(1);
  });

  it('takes a deleted parent placeholder out of the tree with its last visible reply, and puts it back on UNHIDE', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const parent = await addMessage(t.db, topicId, agent2Id, { parentId: mainId });
    const reply = await addMessage(t.db, topicId, agentId, { parentId: parent });
    await deleteAsPlaceholder(t.db, parent);
    expect((await topicRow(t.db, topicId)).messages_count).toBe(2);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(1);

    await moderateMessage(reply, { action: 'HIDE' });
    expect((await topicRow(t.db, topicId)).messages_count).toBe(1);
    expect((await messageRow(t.db, parent)).replies_count).toBe(0);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(0);

    await moderateMessage(reply, { action: 'UNHIDE' });
    expect((await topicRow(t.db, topicId)).messages_count).toBe(2);
    expect((await messageRow(t.db, parent)).replies_count).toBe(1);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(1);
  });

  it('keeps a deleted parent placeholder that still has another visible reply', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const parent = await addMessage(t.db, topicId, agent2Id, { parentId: mainId });
    const reply = await addMessage(t.db, topicId, agentId, { parentId: parent });
    await addMessage(t.db, topicId, agentId, { parentId: parent });
    await deleteAsPlaceholder(t.db, parent);
    await moderateMessage(reply, { action: 'HIDE' });
    expect((await messageRow(t.db, parent)).replies_count).toBe(1);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(1);
    await moderateMessage(reply, { action: 'UNHIDE' });
    expect((await messageRow(t.db, parent)).replies_count).toBe(2);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(1);
  });

  it('hides the whole topic when the main message is hidden, and shows it again on UNHIDE', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const res = await moderateMessage(mainId, { action: 'HIDE' });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ messageId: mainId, topicId, isHidden: true });
    expect(await topicRow(t.db, topicId)).toMatchObject({ is_hidden: true, messages_count: 1 });
    expect((await messageRow(t.db, mainId)).is_hidden).toBe(false);
    const shown = await moderateMessage(mainId, { action: 'UNHIDE' });
    expect(shown.body.result.isHidden).toBe(false);
    expect((await topicRow(t.db, topicId)).is_hidden).toBe(false);
  });

  it('moderates messages of a hidden topic', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const reply = await addMessage(t.db, topicId, agent2Id, { parentId: mainId });
    await moderateTopic(topicId, { action: 'HIDE' });
    const res = await moderateMessage(reply, { action: 'HIDE' });
    expect(res.status).toBe(200);
    expect((await messageRow(t.db, reply)).is_hidden).toBe(true);
  });

  it('changes the counters once when two moderators hide the same message at once', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const reply = await addMessage(t.db, topicId, agent2Id, { parentId: mainId });
    const admin = await t.token('admin');
    const results = await Promise.all([moderateMessage(reply, { action: 'HIDE' }), moderateMessage(reply, { action: 'HIDE' }, admin)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect((await topicRow(t.db, topicId)).messages_count).toBe(1);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(0);
  });

  it('answers 404 MESSAGE_NOT_FOUND for an unknown or deleted message', async () => {
    const unknown = await moderateMessage(999999, { action: 'HIDE' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: 999999 });
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const reply = await addMessage(t.db, topicId, agent2Id, { parentId: mainId });
    await deleteMessage(t.db, reply);
    const deleted = await moderateMessage(reply, { action: 'UNHIDE' });
    expect(deleted.status).toBe(404);
    expect(deleted.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: reply });
    expect((await topicRow(t.db, topicId)).messages_count).toBe(1);
  });

  it('refuses agents and team managers with 403 FORBIDDEN', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const reply = await addMessage(t.db, topicId, agent2Id, { parentId: mainId });
    for (const user of ['agent', 'manager'] as const) {
      const res = await moderateMessage(reply, { action: 'HIDE' }, await t.token(user));
      expect(res.status).toBe(403);
      expect(res.body.errors.code).toBe('FORBIDDEN');
    }
    expect((await messageRow(t.db, reply)).is_hidden).toBe(false);
  });
});
