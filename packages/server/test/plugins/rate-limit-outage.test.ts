import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

/*
 * A quota survives a Redis outage (the bound is stated in the contract's 429 description): while
 * Redis is unreachable the instance counts on from the last count Redis gave it, and when Redis is
 * back, even empty (restarted without persistence), the higher count is kept and written back.
 */

const url = process.env.REDIS_URL;

describe.runIf(Boolean(url))('rate-limit quotas across a Redis outage', () => {
  let t: TestApp;
  let direct: Redis;
  const QUOTA = 40;

  beforeAll(async () => {
    t = await createTestApp({ rateLimit: { anonymous: 1e9, user: QUOTA, admin: 1e9, windowMs: 3600_000 } });
    direct = new Redis(url!);
  });
  afterAll(async () => {
    direct?.disconnect();
    await t?.close();
  });

  const list = async (token: string) => t.call('listTransports', { token, query: { limit: 1 } });
  const key = async () => {
    const keys = await direct.keys(`${t.app.config.redisPrefix}rate:user:*`);
    expect(keys).toHaveLength(1);
    return keys[0]!;
  };

  it('accepts 30 + 10 requests on a 40-request quota before and during the outage, and none after it, though Redis lost the count', async () => {
    const token = await t.token('agent');
    for (let i = 1; i <= 30; i++) {
      const res = await list(token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(QUOTA - i));
    }
    expect(Number(await direct.get(await key()))).toBe(30);

    // Redis unreachable: the instance counts from 30, not from 0.
    const redis = t.app.redis!;
    redis.disconnect();
    for (let i = 31; i <= QUOTA; i++) {
      const res = await list(token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(QUOTA - i));
    }
    const refused = await list(token);
    expect(refused.status).toBe(429);
    expect(refused.body.errors).toMatchObject({ code: 'RATE_LIMITED', limit: QUOTA });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);

    // Redis back, without the count (a restart without persistence).
    const name = await key();
    await direct.del(name);
    await redis.connect();
    const after = await list(token);
    expect(after.status).toBe(429);
    expect(after.body.errors).toMatchObject({ code: 'RATE_LIMITED', limit: QUOTA });
    expect(Number(await direct.get(name))).toBe(QUOTA + 2);
    expect(await direct.pttl(name)).toBeGreaterThan(3000_000);
    // Another user's quota is untouched.
    expect((await list(await t.token('agent2'))).status).toBe(200);
  });
});
