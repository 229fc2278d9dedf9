import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { useTestApp } from '../../support/app.js';
import { openSse, type SseStream } from '../../support/sse.js';
import { trackedTransport } from '../tracking/fixtures.js';
import { loadRefs, type Refs } from '../transports/fixtures.js';

/**
 * Two instances of the API (A and B) on one database: the limit of live streams per user is
 * counted in the database (one lease per open stream), so it holds for both together.
 */
const live = { perUser: 5, max: 1000, heartbeatMs: 300, maxStreamMs: 600_000, retentionMinutes: 60 };
const t = useTestApp({ live });
let refs: Refs;
let b: FastifyInstance;
const at: { a: string; b: string } = { a: '', b: '' };
let transport: number;

const address = (app: FastifyInstance) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const userId = async (username: string) =>
  (await t.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;
const leasesOf = (user: number) =>
  t.db.selectFrom('live_stream_leases').select(['id', 'instance', 'expires_at']).where('user_id', '=', user).orderBy('id').execute();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until `check` holds (polled every 20 ms, at most 10 s). */
async function until(what: string, check: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const open = async (instance: 'a' | 'b', user: 'agent' | 'supervisor' | 'manager' = 'agent') => {
  const s = await openSse(`${at[instance]}/trade/transports/${transport}/live`, { authorization: `Bearer ${await t.token(user)}` });
  if (s.status === 200) await s.until(1);
  return s;
};
const closeAll = async (streams: SseStream[]) => {
  for (const s of streams) s.close();
  await Promise.all(streams.map((s) => s.ended.catch(() => undefined)));
};

beforeAll(async () => {
  refs = await loadRefs(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  // Instance B: the same configuration (so the same token signing secret) and the same database.
  b = await buildApp({ ...t.app.config }, { db: t.db });
  await b.listen({ port: 0, host: '127.0.0.1' });
  at.a = address(t.app);
  at.b = address(b);
  transport = await trackedTransport(t, refs);
}, 120_000);
afterAll(async () => {
  await b?.close();
});

describe('live streams: the limit per user holds across instances', () => {
  it('refuses on B the 6th stream of a user holding 5 on A, and lets B open one once A closes one', async () => {
    const agent = await userId('agent');
    const onA: SseStream[] = [];
    for (let i = 0; i < 5; i++) onA.push(await open('a'));
    expect(onA.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    expect(t.app.live.count(agent)).toBe(5);
    expect(b.live.count(agent)).toBe(0);
    const leases = await leasesOf(agent);
    expect(leases.map((l) => l.instance)).toEqual(Array(5).fill(t.app.live.instance));

    const sixth = await open('b');
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('retry-after')).toBe('5');
    expect(sixth.events[0]!.data).toMatchObject({
      success: false,
      message: 'Too many live streams open for this user (at most 5)',
      errors: { code: 'LIVE_STREAM_LIMIT', scope: 'USER', limit: 5, retryAfterSeconds: 5 },
    });
    expect(await leasesOf(agent)).toHaveLength(5);
    // Another user is not affected, on either instance.
    const other = await open('b', 'supervisor');
    expect(other.status).toBe(200);

    // One stream closed on A: its lease is given back, and B may open one.
    onA[0]!.close();
    await until('the lease given back', async () => (await leasesOf(agent)).length === 4);
    const onB = await open('b');
    expect(onB.status).toBe(200);
    expect(b.live.count(agent)).toBe(1);
    expect((await leasesOf(agent)).filter((l) => l.instance === b.live.instance)).toHaveLength(1);
    // Full again: now A refuses.
    const again = await open('a');
    expect(again.status).toBe(429);
    expect(again.events[0]!.data.errors).toMatchObject({ code: 'LIVE_STREAM_LIMIT', scope: 'USER' });

    await closeAll([...onA.slice(1), onB, other]);
    await until('every lease given back', async () => (await leasesOf(agent)).length === 0);
    expect(t.app.live.count(agent) + b.live.count(agent)).toBe(0);
  });

  it('takes the last place once only when both instances ask for it at the same time', async () => {
    const agent = await userId('agent');
    const first = await Promise.all([open('a'), open('a'), open('b'), open('b')]);
    expect(first.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const race = await Promise.all([open('a'), open('b'), open('a'), open('b')]);
    expect(race.map((s) => s.status).sort()).toEqual([200, 429, 429, 429]);
    expect(await leasesOf(agent)).toHaveLength(5);
    await closeAll([...first, ...race.filter((s) => s.status === 200)]);
    await until('every lease given back', async () => (await leasesOf(agent)).length === 0);
  });

  it('does not count the expired leases of a crashed instance, and counts the unexpired ones until they expire', async () => {
    const agent = await userId('agent');
    const crashed = (expiresAt: ReturnType<typeof sql<Date>>) =>
      t.db
        .insertInto('live_stream_leases')
        .values(Array.from({ length: 5 }, () => ({ user_id: agent, instance: 'crashed-instance', expires_at: expiresAt })))
        .execute();
    // Expired: ignored, and deleted by the next open of the user.
    await crashed(sql<Date>`now() - interval '1 second'`);
    const s = await open('b');
    expect(s.status).toBe(200);
    expect((await leasesOf(agent)).map((l) => l.instance)).toEqual([b.live.instance]);
    await closeAll([s]);
    await until('the lease given back', async () => (await leasesOf(agent)).length === 0);

    // Just crashed: its leases still count, until they expire (here in 2 s).
    await crashed(sql<Date>`now() + interval '2 seconds'`);
    const refused = await open('a');
    expect(refused.status).toBe(429);
    await until('the leases expired', async () => {
      const { rows } = await sql<{ live: number }>`select count(*)::int as live from live_stream_leases
        where user_id = ${agent} and expires_at > now()`.execute(t.db);
      return rows[0]!.live === 0;
    });
    const later = await open('a');
    expect(later.status).toBe(200);
    expect((await leasesOf(agent)).map((l) => l.instance)).toEqual([t.app.live.instance]);
    // The heartbeat of an instance holding streams deletes expired leases, of any user.
    const supervisor = await userId('supervisor');
    await t.db
      .insertInto('live_stream_leases')
      .values({ user_id: supervisor, instance: 'crashed-instance', expires_at: sql<Date>`now() - interval '1 second'` })
      .execute();
    await until('expired leases swept', async () => (await leasesOf(supervisor)).length === 0);
    expect(await leasesOf(agent)).toHaveLength(1);
    await closeAll([later]);
    await until('the lease given back', async () => (await leasesOf(agent)).length === 0);
  });

  it('extends a lease at each heartbeat, and ends a stream whose lease was lost', async () => {
    const agent = await userId('agent');
    const s = await open('a');
    const [lease] = await leasesOf(agent);
    // A lease lasts 45 s from its last heartbeat (300 ms here).
    const left = lease!.expires_at.getTime() - Date.now();
    expect(left).toBeGreaterThan(40_000);
    expect(left).toBeLessThanOrEqual(46_000);
    await sleep(1000);
    const [renewed] = await leasesOf(agent);
    expect(renewed!.id).toBe(lease!.id);
    expect(renewed!.expires_at.getTime()).toBeGreaterThan(lease!.expires_at.getTime());

    // Gone from the database (its instance stalled past its expiry and another instance swept
    // it): the place may have been given to another stream, so this one ends at the next heartbeat.
    await t.db.deleteFrom('live_stream_leases').where('id', '=', lease!.id).execute();
    await s.ended.catch(() => undefined);
    await until('the place freed on A', () => t.app.live.count(agent) === 0);
    expect(await leasesOf(agent)).toEqual([]);
  });

  it('gives back every lease of an instance that shuts down', async () => {
    const agent = await userId('agent');
    const second = await buildApp({ ...t.app.config }, { db: t.db });
    await second.listen({ port: 0, host: '127.0.0.1' });
    const url = `${address(second)}/trade/transports/${transport}/live`;
    const streams = [await openSse(url, { authorization: `Bearer ${await t.token('agent')}` })];
    streams.push(await openSse(url, { authorization: `Bearer ${await t.token('agent')}` }));
    await Promise.all(streams.map((s) => s.until(1)));
    expect((await leasesOf(agent)).map((l) => l.instance)).toEqual([second.live.instance, second.live.instance]);
    await second.close();
    await Promise.all(streams.map((s) => s.ended.catch(() => undefined)));
    expect(await leasesOf(agent)).toEqual([]);
  });
});
