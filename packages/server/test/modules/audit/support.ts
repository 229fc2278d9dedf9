import { expect } from 'vitest';
import type { CallResult, TestApp } from '../../support/app.js';

/** Any answer: only its headers are read. */
type Answer = Pick<CallResult, 'headers'>;

/** Helpers of the audit log tests: the entries a request wrote, read through the API. */

export interface Entry {
  id: number;
  action: string;
  actor: { userId: number | null; username: string | null; role: string | null; apiKeyId: number | null };
  resource: { type: string; id: number | null };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  details: Record<string, unknown> | null;
  source: { ip: string | null; userAgent: string | null; requestId: string | null };
  occurredAt: string;
}

/** The request id the server gave an answer. */
export function requestIdOf(res: Answer): string {
  const id = res.headers['x-request-id'];
  expect(typeof id).toBe('string');
  return id as string;
}

/** Every entry the request of `res` wrote, read by an administrator filtering on its request id. */
export async function entriesOf(t: TestApp, res: Answer): Promise<Entry[]> {
  const list = await t.call('listAuditLog', { token: await t.token('admin'), query: { requestId: requestIdOf(res), limit: 100 } });
  expect(list.status, JSON.stringify(list.body)).toBe(200);
  return list.body.result.data as Entry[];
}

/** The one entry the request of `res` wrote (a request audits its change once). */
export async function entryOf(t: TestApp, res: Answer): Promise<Entry> {
  const entries = await entriesOf(t, res);
  expect(entries.map((e) => e.action)).toHaveLength(1);
  return entries[0]!;
}

/** The whole stored log as text: what a search for a secret reads. */
export async function storedLog(t: TestApp): Promise<string> {
  const rows = await t.db.selectFrom('audit_log').selectAll().execute();
  return JSON.stringify(rows);
}
