import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { testConfig } from '../../../src/config.js';
import { invalidateAnnouncementCaches } from '../../../src/modules/announcements/cache.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { cacheCases } from './cache-cases.js';
import { createAnnouncement } from './helpers.js';

// The caches through Redis, under a prefix of this file's own: only these keys are touched and deleted.
const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `test:announcements:${randomBytes(6).toString('hex')}:`;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ redisUrl: REDIS_URL, redisPrefix: prefix });
});
afterAll(async () => {
  const redis = t?.app.redis;
  if (redis) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  await t?.close();
});

cacheCases(() => t);

describe('announcement caches in Redis', () => {
  it('stores entries under the deployment prefix and invalidates by bumping the generation key', async () => {
    const redis = t.app.redis!;
    expect(redis).not.toBeNull();
    await t.call('listAnnouncements', { token: await t.token('agent'), query: { search: 'anything' } });
    const generation = Number((await redis.get(`${prefix}announcements:generation`)) ?? 0);
    const keys = await redis.keys(`${prefix}announcements:${generation}:list:AGENT:FR:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(await redis.pttl(keys[0]!)).toBeGreaterThan(0);
    expect(await redis.pttl(keys[0]!)).toBeLessThanOrEqual(10 * 60_000);
    await createAnnouncement(t);
    expect(Number(await redis.get(`${prefix}announcements:generation`))).toBe(generation + 1);
  });

  it('lets a change made on another instance invalidate what this one serves', async () => {
    // A second instance of the service on the same database, Redis and prefix.
    const other = await buildApp(testConfig({ seedDemoData: false, redisUrl: REDIS_URL, redisPrefix: prefix, jwt: t.app.config.jwt }), {
      db: t.db,
    });
    try {
      await other.ready();
      const created = await createAnnouncement(t, { content: 'instance-test' });
      const titles = async () =>
        (await t.call('listAnnouncements', { token: await t.token('agent'), query: { search: 'instance-test' } })).body.result.data.map(
          (a: { title: string }) => a.title,
        );
      expect(await titles()).toEqual([created.title]);
      await t.db.updateTable('announcements').set({ title: 'Changed by the other instance' }).where('id', '=', created.id).execute();
      expect(await titles()).toEqual([created.title]);
      await invalidateAnnouncementCaches(other); // what the other instance does after its change
      expect(await titles()).toEqual(['Changed by the other instance']);
    } finally {
      await other.close();
    }
  });
});
