import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { addMessage, createTopic, messageRow, report, topicRow, userId } from '../forum-admin/fixtures.js';
import { createTutorial, tagId, tutorialBody } from '../tutorials/support.js';
import { entriesOf, entryOf, requestIdOf } from './support.js';

const t = useTestApp();
let supervisor: string;
let agentId: number;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
  agentId = await userId(t.db, 'agent');
});

/**
 * Makes the next COMMIT that touched `table` fail, after the handler's audit call: a deferred
 * constraint trigger raises at COMMIT, so the change and its entry roll back together. Returns
 * the function that removes it.
 */
async function failAtCommit(table: 'forum_topics' | 'forum_messages' | 'tutorials', events: string): Promise<() => Promise<void>> {
  const name = `audit_test_fail_${table}`;
  await sql`create function ${sql.raw(name)}() returns trigger language plpgsql as $$
    begin raise exception 'refused at commit by the test'; end $$`.execute(t.db);
  await sql`create constraint trigger ${sql.raw(name)} after ${sql.raw(events)} on ${sql.table(table)}
    deferrable initially deferred for each row execute function ${sql.raw(name)}()`.execute(t.db);
  return async () => {
    await sql`drop trigger ${sql.raw(name)} on ${sql.table(table)}`.execute(t.db);
    await sql`drop function ${sql.raw(name)}()`.execute(t.db);
  };
}

describe('the audit log of forum moderation', () => {
  it('records each topic action once, with the moderator, the request id, the changed fields and the reason', async () => {
    const { topicId } = await createTopic(t.db, agentId);
    const closed = await t.call('moderateForumTopic', {
      token: supervisor,
      params: { id: topicId },
      body: { action: 'CLOSE', reason: 'Answered.' },
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const entry = await entryOf(t, closed);
    expect(entry).toMatchObject({
      action: 'forum_topic.closed',
      actor: { username: 'supervisor', role: 'supervisor', apiKeyId: null },
      resource: { type: 'forum_topic', id: topicId },
      before: { status: 'ACTIVE' },
      after: { status: 'CLOSED' },
      details: { reason: 'Answered.' },
    });
    expect(entry.source.requestId).toBe(requestIdOf(closed));
    expect(Object.keys(entry.after!)).toEqual(['status']);

    const hidden = await t.call('moderateForumTopic', { token: supervisor, params: { id: topicId }, body: { action: 'HIDE' } });
    expect(hidden.status).toBe(200);
    expect(await entryOf(t, hidden)).toMatchObject({
      action: 'forum_topic.hidden',
      before: { isHidden: false },
      after: { isHidden: true },
      details: { reason: null },
    });

    // A refused action changes nothing and records nothing.
    const refused = await t.call('moderateForumTopic', { token: supervisor, params: { id: topicId }, body: { action: 'CLOSE' } });
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', currentStatus: 'CLOSED' });
    expect(await entriesOf(t, refused)).toEqual([]);

    const all = await t.call('listAuditLog', {
      token: await t.token('admin'),
      query: { resourceType: 'forum_topic', resourceId: topicId },
    });
    expect(all.body.result.data.map((e: { action: string }) => e.action)).toEqual(['forum_topic.hidden', 'forum_topic.closed']);
  });

  it('records a message hidden and shown again; the main message records its topic’s visibility', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const replyId = await addMessage(t.db, topicId, agentId, { parentId: mainId });
    const hide = await t.call('moderateForumMessage', {
      token: supervisor,
      params: { id: replyId },
      body: { action: 'HIDE', reason: 'Spam' },
    });
    expect(hide.status, JSON.stringify(hide.body)).toBe(200);
    expect(await entryOf(t, hide)).toMatchObject({
      action: 'forum_message.hidden',
      actor: { username: 'supervisor' },
      resource: { type: 'forum_message', id: replyId },
      before: { isHidden: false },
      after: { isHidden: true },
      details: { topicId, reason: 'Spam' },
    });
    const show = await t.call('moderateForumMessage', { token: supervisor, params: { id: replyId }, body: { action: 'UNHIDE' } });
    expect(await entryOf(t, show)).toMatchObject({
      action: 'forum_message.unhidden',
      before: { isHidden: true },
      after: { isHidden: false },
    });

    const main = await t.call('moderateForumMessage', { token: supervisor, params: { id: mainId }, body: { action: 'HIDE' } });
    expect(main.status).toBe(200);
    expect(await entryOf(t, main)).toMatchObject({
      action: 'forum_message.hidden',
      resource: { type: 'forum_message', id: mainId },
      before: { isHidden: false },
      after: { isHidden: true },
    });
    expect((await topicRow(t.db, topicId)).is_hidden).toBe(true);
  });

  it('records a report resolved with its message hidden, and a report dismissed', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const replyId = await addMessage(t.db, topicId, agentId, { parentId: mainId });
    const reporterId = await userId(t.db, 'agent2');
    const first = await report(t.db, replyId, reporterId);
    const resolved = await t.call('resolveReportedMessage', {
      token: supervisor,
      params: { id: first },
      body: { decision: 'RESOLVED', comment: 'Removed.', hideMessage: true },
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(await entryOf(t, resolved)).toMatchObject({
      action: 'forum_report.resolved',
      resource: { type: 'forum_report', id: first },
      before: { status: 'PENDING', comment: null },
      after: { status: 'RESOLVED', comment: 'Removed.' },
      details: { messageId: replyId, messageHidden: true },
    });
    const second = await report(t.db, replyId, agentId);
    const dismissed = await t.call('resolveReportedMessage', {
      token: supervisor,
      params: { id: second },
      body: { decision: 'DISMISSED' },
    });
    expect(dismissed.status).toBe(200);
    const entry = await entryOf(t, dismissed);
    expect(entry).toMatchObject({
      action: 'forum_report.dismissed',
      after: { status: 'DISMISSED' },
      details: { messageId: replyId, messageHidden: false },
    });
    expect(Object.keys(entry.after!)).toEqual(['status']);
  });

  it("records a supervisor's deletion of another user's message or topic, not an author's own", async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId, { title: 'A topic a moderator removes' });
    const own = await addMessage(t.db, topicId, agentId, { parentId: mainId });
    const other = await addMessage(t.db, topicId, agentId, { parentId: mainId });
    const byAuthor = await t.call('deleteForumMessage', { token: await t.token('agent'), params: { id: own } });
    expect(byAuthor.status, JSON.stringify(byAuthor.body)).toBe(200);
    expect(await entriesOf(t, byAuthor)).toEqual([]);
    const byModerator = await t.call('deleteForumMessage', { token: supervisor, params: { id: other } });
    expect(byModerator.status, JSON.stringify(byModerator.body)).toBe(200);
    expect(await entryOf(t, byModerator)).toMatchObject({
      action: 'forum_message.deleted',
      actor: { username: 'supervisor' },
      resource: { type: 'forum_message', id: other },
      before: { isDeleted: false },
      after: { isDeleted: true },
      details: { topicId, authorId: agentId },
    });
    expect((await messageRow(t.db, other)).deleted_at).not.toBeNull();

    const topic = await t.call('deleteForumTopic', { token: supervisor, params: { id: topicId } });
    expect(topic.status, JSON.stringify(topic.body)).toBe(200);
    expect(await entryOf(t, topic)).toMatchObject({
      action: 'forum_topic.deleted',
      resource: { type: 'forum_topic', id: topicId },
      before: { title: 'A topic a moderator removes', status: 'ACTIVE', isHidden: false },
      after: null,
      details: { authorId: agentId },
    });
    const gone = await t.db.selectFrom('forum_topics').select('id').where('id', '=', topicId).execute();
    expect(gone).toEqual([]);
  });

  it('keeps no entry of a moderation that rolled back', async () => {
    const { topicId, mainId } = await createTopic(t.db, agentId);
    const replyId = await addMessage(t.db, topicId, agentId, { parentId: mainId });
    const restore = await failAtCommit('forum_topics', 'update');
    try {
      const res = await t.call('moderateForumTopic', { token: supervisor, params: { id: topicId }, body: { action: 'ARCHIVE' } });
      expect(res.status).toBe(500);
      expect(await entriesOf(t, res)).toEqual([]);
      expect(await topicRow(t.db, topicId)).toMatchObject({ status: 'ACTIVE', is_hidden: false });
      // Hiding a reply moves its topic's count: that COMMIT fails too.
      const hide = await t.call('moderateForumMessage', { token: supervisor, params: { id: replyId }, body: { action: 'HIDE' } });
      expect(hide.status).toBe(500);
      expect(await entriesOf(t, hide)).toEqual([]);
      expect((await messageRow(t.db, replyId)).is_hidden).toBe(false);
    } finally {
      await restore();
    }
    const rows = await t.db
      .selectFrom('audit_log')
      .select('id')
      .where('resource_type', '=', 'forum_topic')
      .where('resource_id', '=', topicId)
      .execute();
    expect(rows).toEqual([]);
  });
});

describe('the audit log of tutorials', () => {
  it('records a creation, an update of the fields changed and a deletion', async () => {
    const safety = await tagId(t, 'safety');
    const body = await tutorialBody(t, { tagIds: [safety], status: 'DRAFT' });
    const created = await t.call('createTutorial', { token: supervisor, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id } = created.body.result;
    const creation = await entryOf(t, created);
    expect(creation).toMatchObject({
      action: 'tutorial.created',
      actor: { username: 'supervisor', role: 'supervisor' },
      resource: { type: 'tutorial', id },
      before: null,
      after: {
        title: body.title,
        description: body.description,
        content: body.content,
        difficulty: 'BEGINNER',
        estimatedTime: 10,
        status: 'DRAFT',
        categoryId: body.categoryId,
        tagIds: [safety],
        prerequisiteIds: [],
        chapters: [
          { title: 'First part', startTime: 0, duration: 300, description: null },
          { title: 'Second part', startTime: 300, duration: 300, description: 'The end.' },
        ],
      },
    });
    expect(creation.source.requestId).toBe(requestIdOf(created));

    const updated = await t.call('updateTutorial', {
      token: supervisor,
      params: { id },
      body: { title: `${body.title} (revised)`, status: 'PUBLISHED', tagIds: [safety] },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const update = await entryOf(t, updated);
    expect(update).toMatchObject({
      action: 'tutorial.updated',
      resource: { type: 'tutorial', id },
      before: { title: body.title, status: 'DRAFT' },
      after: { title: `${body.title} (revised)`, status: 'PUBLISHED' },
    });
    // The tags given again did not change: only what changed is kept.
    expect(Object.keys(update.after!).sort()).toEqual(['status', 'title']);

    const deleted = await t.call('deleteTutorial', { token: await t.token('admin'), params: { id } });
    expect(deleted.status).toBe(200);
    expect(await entryOf(t, deleted)).toMatchObject({
      action: 'tutorial.deleted',
      actor: { username: 'admin' },
      resource: { type: 'tutorial', id },
      before: { title: `${body.title} (revised)`, status: 'PUBLISHED', tagIds: [safety] },
      after: null,
    });
  });

  it('records nothing for a refused write, and keeps no entry of one that rolled back', async () => {
    const tutorial = await createTutorial(t);
    const refused = await t.call('updateTutorial', {
      token: supervisor,
      params: { id: tutorial.id },
      body: { prerequisiteIds: [tutorial.id] },
    });
    expect(refused.status).toBe(409);
    expect(await entriesOf(t, refused)).toEqual([]);

    const restore = await failAtCommit('tutorials', 'update or delete');
    try {
      const res = await t.call('updateTutorial', { token: supervisor, params: { id: tutorial.id }, body: { title: 'Never committed' } });
      expect(res.status).toBe(500);
      expect(await entriesOf(t, res)).toEqual([]);
      const gone = await t.call('deleteTutorial', { token: await t.token('admin'), params: { id: tutorial.id } });
      expect(gone.status).toBe(500);
      expect(await entriesOf(t, gone)).toEqual([]);
    } finally {
      await restore();
    }
    const row = await t.db.selectFrom('tutorials').select('title').where('id', '=', tutorial.id).executeTakeFirstOrThrow();
    expect(row.title).toBe(tutorial.title);
    const rows = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('resource_type', '=', 'tutorial')
      .where('resource_id', '=', tutorial.id)
      .execute();
    expect(rows).toEqual([{ action: 'tutorial.created' }]);
  });
});
