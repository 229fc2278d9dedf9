import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, type Cluster, missing, sleep, startApi, startCluster, until } from './processes.js';

if (missing.postgres) console.warn(`PostgreSQL failure-mode tests skipped: ${missing.postgres}`);

describe.skipIf(missing.postgres)('PostgreSQL outages (a private cluster, crashed and frozen)', () => {
  let cluster: Cluster;
  let api: ApiServer;
  let auth: { authorization: string };
  const list = (timeoutMs = 60_000) => api.request('/trade/transports?limit=5', { headers: auth, timeoutMs });
  const login = (timeoutMs = 60_000) =>
    api.request('/auth/login', { method: 'POST', body: JSON.stringify({ username: 'agent', password: 'demo1234' }), timeoutMs });

  const expectUnavailable = (res: { status: number; headers: Headers; body: any }) => {
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, result: null, errors: { code: 'SERVICE_UNAVAILABLE' } });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  };

  beforeAll(async () => {
    cluster = await startCluster();
    api = await startApi({
      DATABASE_URL: cluster.url,
      DATABASE_POOL_SIZE: '4',
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '2000',
      DATABASE_QUERY_TIMEOUT_MS: '3000',
    });
    auth = { authorization: `Bearer ${await api.login('admin')}` };
  }, 300_000);

  afterAll(async () => {
    await api?.stop();
    await cluster?.stop();
  });

  it('survives a crash under load: 503 with Retry-After (login included) while it is down, then recovers on its own', async () => {
    const statuses: number[] = [];
    let running = true;
    const worker = async () => {
      while (running) statuses.push((await list().catch(() => ({ status: -1 }))).status);
    };
    const load = Promise.all(Array.from({ length: 6 }, worker));
    await until('requests served under load', async () => statuses.filter((s) => s === 200).length >= 6);
    await cluster.kill();
    await until('503 once PostgreSQL is gone', async () => (await list()).status === 503);
    await sleep(500);
    running = false;
    await load;

    expectUnavailable(await list());
    expectUnavailable(await login());
    expectUnavailable(await api.request('/ready'));
    expect((await api.request('/health')).body).toMatchObject({ success: true, result: { status: 'ok' } });
    expect(api.process.exitCode).toBeNull();
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses).toContain(503);

    await cluster.start();
    await until('served again after the restart', async () => (await list()).status === 200);
    expect((await login()).status).toBe(200);
    expect((await api.request('/ready')).body.result.status).toMatch(/^(ready|degraded)$/);
  });

  it('answers 503 within the configured timeouts while PostgreSQL is frozen, and recovers when it resumes', async () => {
    expect((await list()).status).toBe(200);
    cluster.freeze();
    try {
      // Every request ends (no hang for the whole stall): the fetch limit here is far above the timeouts.
      const [frozenList, frozenLogin, ready, health] = await Promise.all([
        list(30_000),
        login(30_000),
        api.request('/ready', { timeoutMs: 30_000 }),
        api.request('/health', { timeoutMs: 30_000 }),
      ]);
      expectUnavailable(frozenList);
      expectUnavailable(frozenLogin);
      expectUnavailable(ready);
      expect(health.status).toBe(200);
      expect(api.process.exitCode).toBeNull();
    } finally {
      cluster.thaw();
    }
    await until('served again after the stall', async () => (await list()).status === 200);
    expect((await api.request('/ready')).status).toBe(200);
  });
});
