import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { expectRoleRefused } from '../../support/expect.js';
import { addMessage, createTopic, deleteMessage, messageRow, report, topicRow, userId } from './fixtures.js';

const t = useTestApp();
let supervisor: string;
let ids: Record<'agent' | 'agent2' | 'manager' | 'supervisor', number>;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
  ids = {
    agent: await userId(t.db, 'agent'),
    agent2: await userId(t.db, 'agent2'),
    manager: await userId(t.db, 'manager'),
    supervisor: await userId(t.db, 'supervisor'),
  };
});

/** A topic by agent with one reply by agent2, reported by the given users. */
async function reportedReply(reporters: ('agent' | 'manager' | 'supervisor')[] = ['agent'], content = 'Cheap tyres, call now!') {
  const { topicId, mainId } = await createTopic(t.db, ids.agent);
  const messageId = await addMessage(t.db, topicId, ids.agent2, { parentId: mainId, content });
  const reportIds: number[] = [];
  for (const by of reporters) reportIds.push(await report(t.db, messageId, ids[by], { reason: 'SPAM', comment: `reported by ${by}` }));
  return { topicId, mainId, messageId, reportIds };
}

const resolve = (id: number, body: object, token = supervisor) =>
  t.call('resolveReportedMessage', { params: { id }, payload: body, token });
const reportRow = (id: number) =>
  t.db
    .selectFrom('forum_reports')
    .select(['status', 'resolution_comment', 'resolved_by', 'resolved_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('GET /admin/forum/reported-messages', () => {
  it('lists the seeded report with its message as moderators see it', async () => {
    const res = await t.call('listReportedMessages', { query: { search: 'axle-load regulation' }, token: supervisor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.meta).toEqual({ total: 1, current_page: 1, total_pages: 1, limit: 10 });
    const [item] = res.body.result.data;
    expect(item).toMatchObject({
      reason: 'FALSE_INFORMATION',
      status: 'PENDING',
      comment: 'Encourages drivers to break the axle-load regulation.',
      reporter: { id: ids.agent, firstName: 'Sarah', lastName: 'Benali', avatar: null },
      message: {
        content: 'Just ignore the limits at night, nobody checks the scales after 10 pm.',
        author: { id: ids.agent2, firstName: 'Karim', lastName: 'El Idrissi' },
        isMainMessage: false,
        isHidden: false,
        isDeleted: false,
      },
      reportsCount: 1,
      resolvedAt: null,
    });
  });

  it('filters by status, reason, topic and text in the content or the comment', async () => {
    const { topicId, reportIds } = await reportedReply(['agent', 'manager'], 'Unique phrase zebra-42 in the message');
    await t.db.updateTable('forum_reports').set({ reason: 'HARASSMENT' }).where('id', '=', reportIds[1]!).execute();
    const byTopic = await t.call('listReportedMessages', { query: { topicId }, token: supervisor });
    expect(idsOf(byTopic).sort()).toEqual([...reportIds].sort());
    expect(byTopic.body.result.data.every((r: { reportsCount: number }) => r.reportsCount === 2)).toBe(true);

    const byReason = await t.call('listReportedMessages', { query: { topicId, reason: 'HARASSMENT' }, token: supervisor });
    expect(idsOf(byReason)).toEqual([reportIds[1]]);

    const byContent = await t.call('listReportedMessages', { query: { search: 'ZEBRA-42' }, token: supervisor });
    expect(byContent.body.result.meta.total).toBe(2);
    const byComment = await t.call('listReportedMessages', { query: { search: 'reported by manager', topicId }, token: supervisor });
    expect(idsOf(byComment)).toEqual([reportIds[1]]);

    await t.db.updateTable('forum_reports').set({ status: 'DISMISSED' }).where('id', '=', reportIds[0]!).execute();
    const pending = await t.call('listReportedMessages', { query: { topicId, status: 'PENDING' }, token: supervisor });
    expect(idsOf(pending)).toEqual([reportIds[1]]);
    const dismissed = await t.call('listReportedMessages', { query: { topicId, status: 'DISMISSED' }, token: supervisor });
    expect(dismissed.body.result.data.map((r: { id: number; status: string }) => [r.id, r.status])).toEqual([[reportIds[0], 'DISMISSED']]);
  });

  it('treats % and _ in the search text literally', async () => {
    const res = await t.call('listReportedMessages', { query: { search: '%' }, token: supervisor });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual([]);
  });

  it('sorts by creation time (newest first by default) or by reportsCount, and pages', async () => {
    const base = Date.now() - 3_600_000;
    const single = await reportedReply([]);
    const r1 = await report(t.db, single.messageId, ids.agent, { createdAt: new Date(base + 1000) });
    const triple = await reportedReply([]);
    const r2 = await report(t.db, triple.messageId, ids.agent, { createdAt: new Date(base) });
    await report(t.db, triple.messageId, ids.manager, { createdAt: new Date(base - 1000) });
    await report(t.db, triple.messageId, ids.supervisor, { createdAt: new Date(base - 2000) });

    const newest = await t.call('listReportedMessages', { query: { sortBy: 'createdAt', limit: 100 }, token: supervisor });
    const times = newest.body.result.data.map((r: { createdAt: string }) => Date.parse(r.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const mostReported = await t.call('listReportedMessages', { query: { sortBy: 'reportsCount', limit: 100 }, token: supervisor });
    const counts = mostReported.body.result.data.map((r: { reportsCount: number }) => r.reportsCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(mostReported.body.result.data[0]).toMatchObject({ id: r2, reportsCount: 3 });
    expect(mostReported.body.result.data.find((r: { id: number }) => r.id === r1)!.reportsCount).toBe(1);

    const ascending = await t.call('listReportedMessages', {
      query: { sortBy: 'reportsCount', sortOrder: 'ASC', limit: 100 },
      token: supervisor,
    });
    expect(ascending.body.result.data.at(-1)!.reportsCount).toBe(3);

    const total = newest.body.result.meta.total;
    const page2 = await t.call('listReportedMessages', { query: { limit: 2, page: 2 }, token: supervisor });
    expect(page2.body.result.meta).toEqual({ total, current_page: 2, total_pages: Math.ceil(total / 2), limit: 2 });
    expect(idsOf(page2)).toEqual(newest.body.result.data.slice(2, 4).map((r: { id: number }) => r.id));
  });

  it('refuses agents and team managers with 403 FORBIDDEN', async () => {
    for (const user of ['agent', 'manager'] as const) {
      const res = await t.call('listReportedMessages', { token: await t.token(user) });
      expect(res.status).toBe(403);
      expect(res.body.errors.code).toBe('FORBIDDEN');
    }
  });
});

describe('GET /admin/forum/reported-messages/{id}', () => {
  it('returns the report with its topic, the pending reports on the message and no resolution yet', async () => {
    const { topicId, messageId, reportIds } = await reportedReply(['agent', 'manager']);
    const res = await t.call('getReportedMessageById', { params: { id: reportIds[0]! }, token: supervisor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      id: reportIds[0],
      reason: 'SPAM',
      comment: 'reported by agent',
      status: 'PENDING',
      message: { id: messageId, topicId, content: 'Cheap tyres, call now!' },
      topic: { id: topicId, status: 'ACTIVE', isHidden: false },
      reportsCount: 2,
      pendingReportsCount: 2,
      resolutionComment: null,
      resolvedBy: null,
      resolvedAt: null,
    });
  });

  it('shows hidden and deleted messages with their original content', async () => {
    const { messageId, reportIds } = await reportedReply();
    await deleteMessage(t.db, messageId);
    const res = await t.call('getReportedMessageById', { params: { id: reportIds[0]! }, token: supervisor });
    expect(res.body.result.message).toMatchObject({ content: 'Cheap tyres, call now!', isDeleted: true, isHidden: false });
  });

  it('answers 404 REPORT_NOT_FOUND for an unknown report', async () => {
    const res = await t.call('getReportedMessageById', { params: { id: 999999 }, token: supervisor });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'REPORT_NOT_FOUND', reportId: 999999 });
  });

  it('refuses agents and team managers with 403 FORBIDDEN', async () => {
    for (const user of ['agent', 'manager'] as const) {
      const res = await t.call('getReportedMessageById', { params: { id: 1 }, token: await t.token(user) });
      expectRoleRefused(res, 'getReportedMessageById');
    }
  });
});

describe('POST /admin/forum/reported-messages/{id}/resolve', () => {
  it('dismisses a pending report, recording the comment, the moderator and the time; other reports stay pending', async () => {
    const { messageId, reportIds } = await reportedReply(['agent', 'manager']);
    const res = await resolve(reportIds[0]!, { decision: 'DISMISSED', comment: 'The message is correct.' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('Report dismissed');
    expect(res.body.result).toMatchObject({
      id: reportIds[0],
      status: 'DISMISSED',
      resolutionComment: 'The message is correct.',
      resolvedBy: { id: ids.supervisor, name: 'Moussa Diop' },
      pendingReportsCount: 1,
      reportsCount: 2,
    });
    expect(Date.parse(res.body.result.resolvedAt!)).not.toBeNaN();
    expect(await reportRow(reportIds[0]!)).toMatchObject({ status: 'DISMISSED', resolved_by: ids.supervisor });
    expect((await reportRow(reportIds[1]!)).status).toBe('PENDING');
    expect((await messageRow(t.db, messageId)).is_hidden).toBe(false);
  });

  it('resolves without hiding by default, and with hideMessage hides the message and updates the counters in the same step', async () => {
    const plain = await reportedReply();
    const kept = await resolve(plain.reportIds[0]!, { decision: 'RESOLVED' });
    expect(kept.status).toBe(200);
    expect(kept.body.message).toBe('Report resolved');
    expect(kept.body.result).toMatchObject({ status: 'RESOLVED', resolutionComment: null, message: { isHidden: false } });

    const { topicId, mainId, messageId, reportIds } = await reportedReply();
    const res = await resolve(reportIds[0]!, { decision: 'RESOLVED', comment: 'Advertising', hideMessage: true });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      status: 'RESOLVED',
      resolutionComment: 'Advertising',
      message: { id: messageId, isHidden: true },
    });
    expect((await messageRow(t.db, messageId)).is_hidden).toBe(true);
    expect((await topicRow(t.db, topicId)).messages_count).toBe(1);
    expect((await messageRow(t.db, mainId)).replies_count).toBe(0);
  });

  it('hides the whole topic when the reported message is the main message', async () => {
    const { topicId, mainId } = await createTopic(t.db, ids.agent2);
    const reportId = await report(t.db, mainId, ids.agent);
    const res = await resolve(reportId, { decision: 'RESOLVED', hideMessage: true });
    expect(res.status).toBe(200);
    expect(res.body.result.topic).toMatchObject({ id: topicId, isHidden: true });
    expect((await topicRow(t.db, topicId)).is_hidden).toBe(true);
  });

  it('resolves a report on a deleted message, where hideMessage has no effect', async () => {
    const { topicId, messageId, reportIds } = await reportedReply();
    await deleteMessage(t.db, messageId);
    const res = await resolve(reportIds[0]!, { decision: 'RESOLVED', hideMessage: true });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toMatchObject({ isDeleted: true, isHidden: false });
    expect((await topicRow(t.db, topicId)).messages_count).toBe(1);
  });

  it('refuses a second decision with 409 INVALID_STATUS_TRANSITION and keeps the first one', async () => {
    const { reportIds } = await reportedReply();
    await resolve(reportIds[0]!, { decision: 'DISMISSED', comment: 'first' });
    const res = await resolve(reportIds[0]!, { decision: 'RESOLVED', hideMessage: true });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'INVALID_STATUS_TRANSITION', currentStatus: 'DISMISSED', requested: 'RESOLVED', allowed: [] });
    expect(await reportRow(reportIds[0]!)).toMatchObject({ status: 'DISMISSED', resolution_comment: 'first' });
  });

  it('lets exactly one of two concurrent decisions win', async () => {
    const { messageId, reportIds } = await reportedReply();
    const admin = await t.token('admin');
    const results = await Promise.all([
      resolve(reportIds[0]!, { decision: 'RESOLVED', hideMessage: true }),
      resolve(reportIds[0]!, { decision: 'DISMISSED' }, admin),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!;
    const row = await reportRow(reportIds[0]!);
    expect(row.status).toBe(winner.body.result.status);
    expect((await messageRow(t.db, messageId)).is_hidden).toBe(row.status === 'RESOLVED');
  });

  it('refuses hideMessage with DISMISSED with 400 and leaves the report pending', async () => {
    const { reportIds } = await reportedReply();
    const res = await resolve(reportIds[0]!, { decision: 'DISMISSED', hideMessage: true });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/hideMessage can be true only with decision RESOLVED']);
    expect((await reportRow(reportIds[0]!)).status).toBe('PENDING');
  });

  it('answers 404 REPORT_NOT_FOUND for an unknown report', async () => {
    const res = await resolve(999999, { decision: 'RESOLVED' });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'REPORT_NOT_FOUND', reportId: 999999 });
  });

  it('refuses agents and team managers with 403 FORBIDDEN', async () => {
    const { reportIds } = await reportedReply();
    for (const user of ['agent', 'manager'] as const) {
      const res = await resolve(reportIds[0]!, { decision: 'DISMISSED' }, await t.token(user));
      expect(res.status).toBe(403);
      expect(res.body.errors.code).toBe('FORBIDDEN');
    }
    expect((await reportRow(reportIds[0]!)).status).toBe('PENDING');
  });
});
