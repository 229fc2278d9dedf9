import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { addMessage, createTopic, deleteMessage, report, userId } from './fixtures.js';

const t = useTestApp();
let supervisor: string;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
});

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

  it('keeps its counters equal to a recount through category moves, status changes and deleted topics', async () => {
    const agent = await userId(t.db, 'agent');
    const forum = await t.db.selectFrom('categories').select('id').where('scope', '=', 'FORUM').orderBy('id').limit(2).execute();
    const [from, to] = [forum[0]!.id, forum[1]!.id];
    const moved = await createTopic(t.db, agent, { categoryId: from });
    await addMessage(t.db, moved.topicId, agent, { parentId: moved.mainId });
    await deleteMessage(t.db, await addMessage(t.db, moved.topicId, agent, { parentId: moved.mainId }));
    await t.db.updateTable('forum_messages').set({ is_hidden: true }).where('id', '=', moved.mainId).execute();
    await t.db
      .updateTable('forum_topics')
      .set({ category_id: to, status: 'CLOSED', is_hidden: true })
      .where('id', '=', moved.topicId)
      .execute();
    const gone = await createTopic(t.db, agent, { categoryId: to });
    await addMessage(t.db, gone.topicId, agent, { parentId: gone.mainId });
    await t.db.deleteFrom('forum_topics').where('id', '=', gone.topicId).execute();
    const orphan = await createTopic(t.db, agent, { categoryId: null });
    await t.db.updateTable('forum_topics').set({ category_id: from }).where('id', '=', orphan.topicId).execute();

    // Folded totals and appended rows (migration 0016): the figures of a category are sums.
    const kept = await sql<Record<string, number>>`select category_id, sum(topics)::int as topics, sum(topics_hidden)::int as topics_hidden,
        sum(topics_active)::int as topics_active, sum(topics_closed)::int as topics_closed, sum(topics_archived)::int as topics_archived,
        sum(messages)::int as messages, sum(messages_hidden)::int as messages_hidden, sum(messages_deleted)::int as messages_deleted
      from forum_category_counts group by category_id
      having sum(topics) <> 0 or sum(messages) <> 0 or sum(messages_deleted) <> 0 order by category_id`.execute(t.db);
    const recounted = await sql<Record<string, number>>`select coalesce(t.category_id, 0) as category_id, count(*)::int as topics,
        (count(*) filter (where t.is_hidden))::int as topics_hidden, (count(*) filter (where t.status = 'ACTIVE'))::int as topics_active,
        (count(*) filter (where t.status = 'CLOSED'))::int as topics_closed, (count(*) filter (where t.status = 'ARCHIVED'))::int as topics_archived,
        coalesce(sum(m.live), 0)::int as messages, coalesce(sum(m.hidden), 0)::int as messages_hidden, coalesce(sum(m.deleted), 0)::int as messages_deleted
      from forum_topics t left join lateral (
        select count(*) filter (where deleted_at is null) as live, count(*) filter (where deleted_at is null and is_hidden) as hidden,
          count(*) filter (where deleted_at is not null) as deleted from forum_messages where topic_id = t.id) m on true
      group by 1 order by 1`.execute(t.db);
    expect(kept.rows).toEqual(recounted.rows);
    const reports = await sql`select status, sum(reports)::int as reports from forum_report_counts group by 1 having sum(reports) <> 0
      order by status`.execute(t.db);
    const reportsRecounted = await sql`select status, count(*)::int as reports from forum_reports group by 1 order by 1`.execute(t.db);
    expect(reports.rows).toEqual(reportsRecounted.rows);
  });

  it('refuses agents and team managers with 403 FORBIDDEN', async () => {
    for (const user of ['agent', 'manager'] as const) {
      const res = await t.call('getForumStats', { token: await t.token(user) });
      expect(res.status).toBe(403);
      expect(res.body.errors.code).toBe('FORBIDDEN');
    }
  });
});
