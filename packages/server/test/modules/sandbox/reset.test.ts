import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DEMO_PASSWORD, type TestApp, useTestApp } from '../../support/app.js';
import { loadRefs, transportBody } from '../transports/fixtures.js';

describe('POST /sandbox/reset in sandbox mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The sandbox runs on the embedded in-memory database only (SANDBOX refuses DATABASE_URL), so
    // this app gets one even in the PostgreSQL run.
    const url = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      t = await createTestApp({ sandbox: true, databaseUrl: undefined });
    } finally {
      if (url !== undefined) process.env.DATABASE_URL = url;
    }
  });
  afterAll(async () => t?.close());

  const tagNames = async (token: string) => {
    const res = await t.call('listConfigTags', { query: { limit: 100 }, token });
    expect(res.status).toBe(200);
    return (res.body.result.data as { name: string; color: string }[]).map((g) => `${g.name} ${g.color}`).sort();
  };

  it('undoes every change made since start and ends the sessions opened since', async () => {
    const supervisor = await t.token('supervisor');
    const initial = await tagNames(supervisor);

    const created = await t.call('createConfigTag', { body: { name: 'sandbox-made', color: '#123456' }, token: supervisor });
    expect(created.status).toBe(201);
    const safety = initial.find((n) => n.startsWith('safety '))!;
    const safetyId = (await t.db.selectFrom('tags').select('id').where('name', '=', 'safety').executeTakeFirstOrThrow()).id;
    const updated = await t.call('updateConfigTag', { params: { id: safetyId }, body: { color: '#000000' }, token: supervisor });
    expect(updated.status).toBe(200);
    expect(await tagNames(supervisor)).toContain('sandbox-made #123456');

    const reset = await t.call('resetSandbox');
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ success: true, message: 'Sandbox reset to its demo data', errors: null });
    expect(reset.body.result.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(reset.body.result.restoredAt)).not.toBeNaN();

    // The session of the token taken before the reset no longer exists.
    const stale = await t.call('getProfile', { token: supervisor });
    expect(stale.status).toBe(401);
    expect(stale.body.success).toBe(false);

    const login = await t.call('login', { body: { username: 'supervisor', password: 'demo1234' } });
    expect(login.status).toBe(200);
    const fresh = login.body.result.access_token as string;
    const after = await tagNames(fresh);
    expect(after).toEqual(initial);
    expect(after).toContain(safety);
    // The harness's own handle on the database sees the same reset data.
    expect(await t.db.selectFrom('tags').select('name').where('name', '=', 'sandbox-made').execute()).toEqual([]);
  });

  it('answers statistics about the data after a reset, not about the same point before it', async () => {
    // The reset puts the change counters that validate cached statistics back where they were: a
    // transport created before it and one created after it leave them at the same values.
    const refs = await loadRefs(t);
    const login = async (username: string) =>
      (await t.call('login', { body: { username, password: DEMO_PASSWORD } })).body.result.access_token as string;
    const valueAfterCreating = async (totalProductValue: number) => {
      const created = await t.call('createTransport', { token: await login('agent'), body: transportBody(refs, { totalProductValue }) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const stats = await t.call('getTransportStats', { token: await login('supervisor') });
      expect(stats.status).toBe(200);
      return stats.body.result.totalProductValue as number;
    };
    expect((await t.call('resetSandbox')).status).toBe(200);
    const before = await valueAfterCreating(1000);
    expect((await t.call('resetSandbox')).status).toBe(200);
    const after = await valueAfterCreating(7);
    expect(before - after).toBeCloseTo(993, 2);
  });

  it('lets requests that arrive during a reset wait for it and see the initial data', async () => {
    const supervisor = (await t.call('login', { body: { username: 'supervisor', password: 'demo1234' } })).body.result.access_token;
    await t.call('createConfigTag', { body: { name: 'made-before-reset', color: '#654321' }, token: supervisor });
    const [reset, ready] = await Promise.all([t.call('resetSandbox'), t.call('getReadiness')]);
    expect(reset.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body.result.checks.database.status).toBe('up');
    const rows = await t.db.selectFrom('tags').select('name').where('name', '=', 'made-before-reset').execute();
    expect(rows).toEqual([]);
  });
});

describe('POST /sandbox/reset with an empty body', () => {
  let t: TestApp;
  beforeAll(async () => {
    const url = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      t = await createTestApp({ sandbox: true, databaseUrl: undefined });
    } finally {
      if (url !== undefined) process.env.DATABASE_URL = url;
    }
  });
  afterAll(async () => t?.close());

  it('resets whatever the Content-Type of the empty body (the operation declares none)', async () => {
    for (const contentType of ['application/json', 'text/plain']) {
      const res = await t.call('resetSandbox', { headers: { 'content-type': contentType }, payload: '' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ success: true, message: 'Sandbox reset to its demo data', errors: null });
    }
  });
});

describe('POST /sandbox/reset outside sandbox mode', () => {
  const t = useTestApp();

  it('does not exist: 404 ROUTE_NOT_FOUND, as an unbound path, and nothing is reset', async () => {
    const supervisor = await t.token('supervisor');
    const created = await t.call('createConfigTag', { body: { name: 'kept-outside-sandbox', color: '#111111' }, token: supervisor });
    expect(created.status).toBe(201);
    const res = await t.call('resetSandbox');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      success: false,
      result: null,
      errors: { code: 'ROUTE_NOT_FOUND', method: 'POST', url: '/sandbox/reset' },
    });
    const rows = await t.db.selectFrom('tags').select('name').where('name', '=', 'kept-outside-sandbox').execute();
    expect(rows).toHaveLength(1);
    // Another method is no 405 either: the path is not known outside sandbox mode.
    const get = await t.app.inject({ method: 'GET', url: '/sandbox/reset' });
    expect(get.statusCode).toBe(404);
    expect(get.json().errors).toEqual({ code: 'ROUTE_NOT_FOUND', method: 'GET', url: '/sandbox/reset' });
  });
});
