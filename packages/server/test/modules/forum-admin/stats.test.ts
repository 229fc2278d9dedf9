import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { addMessage, createTopic, deleteMessage, report, userId } from './fixtures.js';

let t: TestApp;
let supervisor: string;
beforeAll(async () => {
  t = await createTestApp();
  supervisor = await t.token('supervisor');
});
afterAll(async () => t?.close());

const stats = async () => {
  const res = await t.call('getForumStats', { token: supervisor });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result;
};

describe('GET /admin/forum/stats', () => {
  it('counts the seeded forum: topics by status, messages, reports and the top categories', async () => {
    const s = await stats();
    expect(s.topics).toEqual({ total: 4, hidden: 0, byStatus: { ACTIVE: 3, CLOSED: 1, ARCHIVED: 0 } });
    expect(s.messages).toMatchObject({ total: 12, hidden: 0, deleted: 0 });
    expect(s.reports).toEqual({ total: 1, byStatus: { PENDING: 1, RESOLVED: 0, DISMISSED: 0 } });
    expect(
      s.topCategories.map((c: { name: string; topicsCount: number; messagesCount: number }) => [c.name, c.topicsCount, c.messagesCount]),
    ).toEqual([
      ['Routes and logistics', 1, 5],
      ['Regulations', 1, 4],
      ['General discussion', 1, 2],
      ['Vehicles and maintenance', 1, 1],
    ]);
    expect(s.activeAuthorsLast30Days).toBeGreaterThanOrEqual(4);
    expect(Date.parse(s.generatedAt)).not.toBeNaN();
  });

  it('follows new, hidden and deleted content, old messages and report decisions', async () => {
    const before = await stats();
    const agent = await userId(t.db, 'agent');
    const admin = await userId(t.db, 'admin');
    const category = await t.db
      .selectFrom('categories')
      .select('id')
      .where('scope', '=', 'FORUM')
      .where('name', '=', 'Regulations')
      .executeTakeFirstOrThrow();
    const { topicId, mainId } = await createTopic(t.db, agent, { categoryId: category.id, status: 'ARCHIVED' });
    const reply = await addMessage(t.db, topicId, admin, { parentId: mainId });
    const old = await addMessage(t.db, topicId, admin, { parentId: mainId, createdAt: new Date(Date.now() - 40 * 86_400_000) });
    const gone = await addMessage(t.db, topicId, admin, { parentId: mainId });
    await deleteMessage(t.db, gone);
    const reportId = await report(t.db, reply, agent);
    await report(t.db, old, agent);
    await t.call('moderateForumMessage', { params: { id: reply }, body: { action: 'HIDE' }, token: supervisor });
    await t.call('moderateForumTopic', { params: { id: topicId }, body: { action: 'HIDE' }, token: supervisor });
    await t.call('resolveReportedMessage', { params: { id: reportId }, body: { decision: 'DISMISSED' }, token: supervisor });

    const after = await stats();
    expect(after.topics.total).toBe(before.topics.total + 1);
    expect(after.topics.hidden).toBe(before.topics.hidden + 1);
    expect(after.topics.byStatus.ARCHIVED).toBe(before.topics.byStatus.ARCHIVED + 1);
    expect(after.messages.total).toBe(before.messages.total + 3);
    expect(after.messages.hidden).toBe(before.messages.hidden + 1);
    expect(after.messages.deleted).toBe(before.messages.deleted + 1);
    expect(after.messages.last30Days).toBe(before.messages.last30Days + 2);
    expect(after.reports).toEqual({
      total: before.reports.total + 2,
      byStatus: {
        PENDING: before.reports.byStatus.PENDING + 1,
        RESOLVED: before.reports.byStatus.RESOLVED,
        DISMISSED: before.reports.byStatus.DISMISSED + 1,
      },
    });
    expect(after.topCategories[0]).toMatchObject({ id: category.id, name: 'Regulations', topicsCount: 2, messagesCount: 4 + 3 });
  });

  it('refuses agents and team managers with 403 FORBIDDEN', async () => {
    for (const user of ['agent', 'manager'] as const) {
      const res = await t.call('getForumStats', { token: await t.token(user) });
      expect(res.status).toBe(403);
      expect(res.body.errors.code).toBe('FORBIDDEN');
    }
  });
});
