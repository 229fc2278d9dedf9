import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, missing, type RedisServer, startApi, startRedis, until } from './processes.js';

if (missing.redis) console.warn(`Redis failure-mode tests skipped: ${missing.redis}`);

describe.skipIf(missing.redis)('Redis outage (a private redis-server, stopped and restarted)', () => {
  let redis: RedisServer;
  let api: ApiServer;

  beforeAll(async () => {
    redis = await startRedis();
    api = await startApi({ REDIS_URL: redis.url, RATE_LIMIT_ANONYMOUS: '1000' });
  }, 300_000);

  afterAll(async () => {
    await api?.stop();
    await redis?.kill();
  });

  it('keeps serving with in-process rate limits while Redis is down, says so in /ready, and uses Redis again once it is back', async () => {
    const before = await api.request('/ready');
    expect(before.body.result).toMatchObject({ status: 'ready', checks: { redis: { status: 'up' } } });

    await redis.kill();
    const token = await api.login('agent');
    const res = await api.request('/trade/transports?limit=5', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true });
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    const anonymous = await api.request('/certificates/ABCDEFGH2345/verify');
    expect(anonymous.status).toBe(404);
    expect(anonymous.headers.get('x-ratelimit-remaining')).not.toBeNull();

    const ready = await api.request('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.result).toMatchObject({ status: 'degraded', checks: { database: { status: 'up' }, redis: { status: 'down' } } });
    expect((await api.request('/health')).status).toBe(200);
    expect(api.process.exitCode).toBeNull();

    await redis.start();
    await until('Redis used again', async () => (await api.request('/ready')).body.result.status === 'ready', 60);
    const logout = await api.request('/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
    expect(logout.status).toBe(200);
  });
});
