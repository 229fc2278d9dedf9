import { expect } from 'vitest';
import type { TestApp } from '../../support/app.js';

let counter = 0;

/** Creates a topic through the API and returns its result (fails the test otherwise). */
export async function newTopic(t: TestApp, token: string, body: Record<string, unknown> = {}) {
  counter += 1;
  const res = await t.call('createForumTopic', {
    token,
    body: { title: `Test topic number ${counter}`, content: `Content of test topic number ${counter}.`, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; title: string; [key: string]: unknown };
}

/** Posts a message through the API and returns its result. */
export async function newMessage(t: TestApp, token: string, topicId: number, parentId: number | null = null, content = 'A test message.') {
  const res = await t.call('createForumMessage', { token, body: { topicId, content, parentId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; parentId: number | null; [key: string]: unknown };
}

/** The id of the main message of a topic. */
export async function mainMessageId(t: TestApp, topicId: number): Promise<number> {
  const row = await t.db
    .selectFrom('forum_messages')
    .select('id')
    .where('topic_id', '=', topicId)
    .where('is_main_message', '=', true)
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function userId(t: TestApp, username: string): Promise<number> {
  const row = await t.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
  return row.id;
}

export async function topicRow(t: TestApp, id: number) {
  return t.db.selectFrom('forum_topics').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function messageRow(t: TestApp, id: number) {
  return t.db.selectFrom('forum_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export const setTopic = (t: TestApp, id: number, values: { status?: 'ACTIVE' | 'CLOSED' | 'ARCHIVED'; is_hidden?: boolean }) =>
  t.db.updateTable('forum_topics').set(values).where('id', '=', id).execute();

export const setMessage = (t: TestApp, id: number, values: { is_hidden?: boolean }) =>
  t.db.updateTable('forum_messages').set(values).where('id', '=', id).execute();
