import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { mainMessageId, newMessage, newTopic, setMessage, setTopic, userId } from './helpers.js';

const t = useTestApp();
let agent: string;
let agent2: string;
let manager: string;

beforeAll(async () => {
  [agent, agent2, manager] = await Promise.all([t.token('agent'), t.token('agent2'), t.token('manager')]);
});

describe('POST /trade/forum/messages/{id}/report', () => {
  it('records a PENDING report with its reason and comment', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent2, topic.id);
    const res = await t.call('reportForumMessage', {
      token: agent,
      params: { id: message.id },
      body: { reason: 'HARASSMENT', comment: '  Insults another driver.  ' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toMatchObject({ messageId: message.id, reason: 'HARASSMENT', status: 'PENDING' });
    const row = await t.db.selectFrom('forum_reports').selectAll().where('id', '=', res.body.result.reportId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ reporter_id: await userId(t, 'agent'), comment: 'Insults another driver.', status: 'PENDING' });
  });

  it('accepts a report of the main message and of one’s own message', async () => {
    const topic = await newTopic(t, agent);
    const main = await mainMessageId(t, topic.id);
    const res = await t.call('reportForumMessage', { token: agent, params: { id: main }, body: { reason: 'OTHER' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toMatchObject({ messageId: main, reason: 'OTHER', status: 'PENDING' });
    const mine = await t.call('listMyForumReports', { token: agent });
    expect(mine.body.result.data).toContainEqual(expect.objectContaining({ reportId: res.body.result.reportId, messageId: main }));
  });

  it('refuses a second report by the same user with 409 ALREADY_REPORTED and the existing report id, also in parallel', async () => {
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, agent2, topic.id);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.call('reportForumMessage', { token: manager, params: { id: message.id }, body: { reason: 'SPAM' } }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    const reportId = created[0]!.body.result.reportId;
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.errors).toEqual({ code: 'ALREADY_REPORTED', messageId: message.id, reportId });
    }
    await t.db.updateTable('forum_reports').set({ status: 'DISMISSED', resolved_at: new Date() }).where('id', '=', reportId).execute();
    const later = await t.call('reportForumMessage', { token: manager, params: { id: message.id }, body: { reason: 'OTHER' } });
    expect(later.status).toBe(409);
    const rows = await t.db.selectFrom('forum_reports').select('id').where('message_id', '=', message.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('answers 404 MESSAGE_NOT_FOUND for hidden, deleted or unknown messages', async () => {
    const topic = await newTopic(t, agent);
    const hidden = await newMessage(t, agent2, topic.id);
    await setMessage(t, hidden.id, { is_hidden: true });
    const deleted = await newMessage(t, agent2, topic.id);
    await t.call('deleteForumMessage', { token: agent2, params: { id: deleted.id } });
    for (const id of [hidden.id, deleted.id, 999_999]) {
      const res = await t.call('reportForumMessage', { token: agent, params: { id }, body: { reason: 'SPAM' } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'MESSAGE_NOT_FOUND', messageId: id });
    }
  });
});

describe('GET /trade/forum/my-reports', () => {
  it('lists only the caller’s reports, newest first, with a status filter', async () => {
    const topic = await newTopic(t, agent, { title: 'Reported topic for listing' });
    const first = await newMessage(t, agent, topic.id);
    const second = await newMessage(t, agent, topic.id);
    const r1 = await t.call('reportForumMessage', { token: agent2, params: { id: first.id }, body: { reason: 'SPAM', comment: 'ads' } });
    const r2 = await t.call('reportForumMessage', { token: agent2, params: { id: second.id }, body: { reason: 'OTHER' } });
    await t.call('reportForumMessage', { token: manager, params: { id: first.id }, body: { reason: 'SPAM' } });
    const resolvedAt = new Date();
    await t.db
      .updateTable('forum_reports')
      .set({ status: 'RESOLVED', resolved_at: resolvedAt })
      .where('id', '=', r1.body.result.reportId)
      .execute();

    const res = await t.call('listMyForumReports', { token: agent2 });
    expect(res.status).toBe(200);
    expect(res.body.result.data.map((r: { reportId: number }) => r.reportId)).toEqual([r2.body.result.reportId, r1.body.result.reportId]);
    expect(res.body.result.data[1]).toEqual({
      reportId: r1.body.result.reportId,
      messageId: first.id,
      topic: { id: topic.id, title: 'Reported topic for listing' },
      reason: 'SPAM',
      comment: 'ads',
      status: 'RESOLVED',
      createdAt: r1.body.result.createdAt,
      resolvedAt: resolvedAt.toISOString(),
    });
    expect(res.body.result.data[0]).toMatchObject({ comment: null, status: 'PENDING', resolvedAt: null });
    expect(res.body.result.meta).toEqual({ total: 2, current_page: 1, total_pages: 1, limit: 10 });

    const pending = await t.call('listMyForumReports', { token: agent2, query: { status: 'PENDING' } });
    expect(pending.body.result.data.map((r: { reportId: number }) => r.reportId)).toEqual([r2.body.result.reportId]);
  });
});

describe('PUT/DELETE /trade/forum/topics/{id}/subscription and GET /trade/forum/subscriptions', () => {
  it('subscribes idempotently, keeping the original date', async () => {
    const topic = await newTopic(t, agent);
    const first = await t.call('subscribeForumTopic', { token: agent2, params: { id: topic.id } });
    expect(first.status).toBe(200);
    expect(first.body.result.topic).toMatchObject({ id: topic.id, title: topic.title, status: 'ACTIVE', messagesCount: 1 });
    const second = await t.call('subscribeForumTopic', { token: agent2, params: { id: topic.id } });
    expect(second.body.result.subscribedAt).toBe(first.body.result.subscribedAt);
    const rows = await t.db.selectFrom('forum_subscriptions').select('user_id').where('topic_id', '=', topic.id).execute();
    expect(rows).toHaveLength(2); // the author and agent2
    const detail = await t.call('getForumTopicById', { token: agent2, params: { id: topic.id } });
    expect(detail.body.result.isSubscribed).toBe(true);
  });

  it('unsubscribes idempotently', async () => {
    const topic = await newTopic(t, agent);
    await t.call('subscribeForumTopic', { token: agent2, params: { id: topic.id } });
    const res = await t.call('unsubscribeForumTopic', { token: agent2, params: { id: topic.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect((await t.call('unsubscribeForumTopic', { token: agent2, params: { id: topic.id } })).status).toBe(200);
    const rows = await t.db.selectFrom('forum_subscriptions').select('user_id').where('topic_id', '=', topic.id).execute();
    expect(rows).toEqual([{ user_id: await userId(t, 'agent') }]);
  });

  it('answers 404 TOPIC_NOT_FOUND for hidden or unknown topics', async () => {
    const topic = await newTopic(t, agent);
    await setTopic(t, topic.id, { is_hidden: true });
    for (const id of [topic.id, 999_999]) {
      const put = await t.call('subscribeForumTopic', { token: agent2, params: { id } });
      expect(put.status).toBe(404);
      expect(put.body.errors).toEqual({ code: 'TOPIC_NOT_FOUND', topicId: id });
      expect((await t.call('unsubscribeForumTopic', { token: agent2, params: { id } })).status).toBe(404);
    }
  });

  it('lists the caller’s followed visible topics, most recently active first', async () => {
    const staff = await t.token('supervisor');
    const older = await newTopic(t, staff, { title: 'Followed older topic' });
    const newer = await newTopic(t, staff, { title: 'Followed newer topic' });
    const hidden = await newTopic(t, staff, { title: 'Followed hidden topic' });
    await setTopic(t, hidden.id, { is_hidden: true });
    await newMessage(t, agent, older.id); // older becomes the most recently active
    const res = await t.call('listMyForumSubscriptions', { token: staff, query: { limit: 100 } });
    expect(res.status).toBe(200);
    const ids = res.body.result.data.map((s: { topic: { id: number } }) => s.topic.id);
    expect(ids.slice(0, 2)).toEqual([older.id, newer.id]);
    expect(ids).not.toContain(hidden.id);
    expect(res.body.result.data[0]!.topic.messagesCount).toBe(2);
    const others = await t.call('listMyForumSubscriptions', { token: manager });
    expect(others.body.result.data.map((s: { topic: { id: number } }) => s.topic.id)).not.toContain(older.id);
  });
});
