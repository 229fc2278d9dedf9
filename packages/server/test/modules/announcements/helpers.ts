import { expect, vi } from 'vitest';
import { invalidateAnnouncementCaches } from '../../../src/modules/announcements/cache.js';
import type { TestApp } from '../../support/app.js';

/** Id of a seeded row found by its name. */
export async function categoryId(t: TestApp, name: string, scope: 'ANNOUNCEMENT' | 'FORUM' = 'ANNOUNCEMENT'): Promise<number> {
  const row = await t.db
    .selectFrom('categories')
    .select('id')
    .where('name', '=', name)
    .where('scope', '=', scope)
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function tagId(t: TestApp, name: string): Promise<number> {
  return (await t.db.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
}

export async function seededId(t: TestApp, title: string): Promise<number> {
  return (await t.db.selectFrom('announcements').select('id').where('title', '=', title).executeTakeFirstOrThrow()).id;
}

export async function userId(t: TestApp, username: string): Promise<number> {
  return (await t.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;
}

let counter = 0;
/** A unique title, so that searches find exactly the announcement a test created. */
export const uniqueTitle = (label: string) => {
  counter += 1;
  return `${label} #${Date.now().toString(36)}${counter}`;
};

/** Creates an announcement through the admin API (published and global unless told otherwise). */
export async function createAnnouncement(t: TestApp, body: Record<string, unknown> = {}) {
  const res = await t.call('createAnnouncement', {
    token: await t.token('admin'),
    body: {
      title: uniqueTitle('Test announcement'),
      content: 'Body of the test announcement.',
      categoryId: await categoryId(t, 'Company news'),
      status: 'PUBLISHED',
      ...body,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; title: string; publishedAt: string | null; [key: string]: unknown };
}

/** Moves an announcement's expiry into the past, straight in the database (the API refuses past expiries). */
export async function expireDirectly(t: TestApp, id: number): Promise<string> {
  const expiresAt = new Date(Date.now() - 60_000);
  await t.db.updateTable('announcements').set({ expires_at: expiresAt }).where('id', '=', id).execute();
  // Direct database edits bypass the API's invalidation.
  await invalidateAnnouncementCaches(t.app);
  return expiresAt.toISOString();
}

/**
 * Runs `fn` with the process's clock (Date only; timers stay real) set to `instant`: the server
 * reads the time through Date, so a test can stand just before or just after an announcement's
 * expiry however long the machine takes to get there.
 */
export async function atInstant<T>(instant: Date, fn: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'], now: instant });
  try {
    return await fn();
  } finally {
    vi.useRealTimers();
  }
}
