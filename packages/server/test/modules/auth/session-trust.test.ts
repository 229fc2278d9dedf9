import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { BUS_HEARTBEAT_MS, BUS_SILENCE_MS } from '../../../src/lib/bus.js';
import { missing, type RedisServer, sleep, startRedis, until } from '../../ops/processes.js';
import { createTestApp, DEMO_PASSWORD, type TestApp, useTestApp } from '../../support/app.js';
import { expectUnauthenticated } from '../../support/expect.js';
import { createUser, login } from '../users/support.js';

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: number; exp: number };

describe('the trusted-session cache ends with the session', () => {
  const t = useTestApp();
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses a token once its session has expired, even one used a moment before (and valid by its own exp)', async () => {
    const issued = (await t.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } })).body.result;
    const { sid, exp } = claimsOf(issued.access_token);
    // A session in its last seconds: its access token (an hour) outlives it.
    const endsAt = Date.now() + 2000;
    await t.db
      .updateTable('sessions')
      .set({ expires_at: new Date(endsAt) })
      .where('id', '=', sid)
      .execute();
    const before = await t.call('getProfile', { token: issued.access_token });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.result.username).toBe('agent');

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(endsAt + 1000);
    expect(exp * 1000).toBeGreaterThan(Date.now() + 60_000);
    expectUnauthenticated(await t.call('getProfile', { token: issued.access_token }), 'Token has been revoked');
    const validated = await t.call('validateToken', { body: { token: issued.access_token } });
    expect(validated.body.result).toEqual({ isValid: false, user: null });
  });
});

if (missing.redis) console.warn(`revocation with Redis down skipped: ${missing.redis}`);

/**
 * Two instances of the API on one database, sharing a private Redis that is stopped or frozen: a
 * revocation on one instance must hold on the other at once, the bus being down or not.
 */
describe.skipIf(missing.redis)('revocation across instances while Redis is down', () => {
  let redis: RedisServer;
  let t: TestApp; // instance A (and the test's helpers)
  let b: FastifyInstance; // instance B, on the same database and Redis
  let adminToken: string;

  beforeAll(async () => {
    redis = await startRedis();
    const redisPrefix = `test:${randomBytes(6).toString('hex')}:`;
    t = await createTestApp({ redisUrl: redis.url, redisPrefix });
    b = await buildApp(Object.assign({}, t.app.config, { redisUrl: redis.url, redisPrefix }), { db: t.db });
    await b.ready();
    await until(
      'both buses live',
      async () => t.app.bus.liveSince() < Number.POSITIVE_INFINITY && b.bus.liveSince() < Number.POSITIVE_INFINITY,
      30,
    );
    adminToken = await t.token('admin');
  }, 120_000);

  afterAll(async () => {
    redis?.thaw();
    await b?.close();
    await t?.close();
    await redis?.kill();
  });

  /** GET /auth/profile on instance B with `token`: the status and the envelope. */
  const profileOnB = async (token: string) => {
    const res = await b.inject({ method: 'GET', url: '/auth/profile', headers: { authorization: `Bearer ${token}` } });
    return { status: res.statusCode, body: res.json() as { success: boolean; errors: unknown; result: { username?: string } | null } };
  };
  const expectRefusedOnB = async (token: string) => {
    const res = await profileOnB(token);
    expect(res).toEqual({ status: 401, body: expect.objectContaining({ success: false, errors: ['Token has been revoked'] }) });
  };
  /** A fresh account's token, used once on B so that B trusts its session. */
  const trustedOnB = async () => {
    const user = await createUser(t);
    const { access_token } = await login(t, user.username);
    const res = await profileOnB(access_token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result?.username).toBe(user.username);
    return { user, token: access_token };
  };

  it('revokes at once on the other instance while the bus is live (the control case)', async () => {
    const { token } = await trustedOnB();
    expect((await t.call('logout', { token })).status).toBe(200);
    await until('the revocation reaches B', async () => (await profileOnB(token)).status === 401, 5);
    await expectRefusedOnB(token);
  });

  it('with Redis stopped, a logout, a session revocation and a deactivation on A hold on B at once', async () => {
    const loggedOut = await trustedOnB();
    const revoked = await trustedOnB();
    const deactivated = await trustedOnB();
    const untouched = await trustedOnB();
    await redis.kill();

    const logout = await t.call('logout', { token: loggedOut.token });
    expect(logout.body).toMatchObject({ success: true, message: 'Logged out' });
    await expectRefusedOnB(loggedOut.token);

    const sid = claimsOf(revoked.token).sid;
    const revoke = await t.call('revokeSession', { token: adminToken, params: { id: sid } });
    expect(revoke.status, JSON.stringify(revoke.body)).toBe(200);
    await expectRefusedOnB(revoked.token);

    const deactivate = await t.call('deactivateUser', { token: adminToken, params: { id: deactivated.user.id } });
    expect(deactivate.status, JSON.stringify(deactivate.body)).toBe(200);
    await expectRefusedOnB(deactivated.token);

    // A session nobody ended still works on B (read from the database).
    const still = await profileOnB(untouched.token);
    expect(still.status).toBe(200);
    expect(still.body.result?.username).toBe(untouched.user.username);

    // Redis back: what B trusted before the outage is not trusted past it.
    await redis.start();
    await until('B hears the bus again', async () => b.bus.liveSince() < Number.POSITIVE_INFINITY, 60);
    await expectRefusedOnB(revoked.token);
    const after = await profileOnB(untouched.token);
    expect(after.body.result?.username).toBe(untouched.user.username);
  }, 120_000);

  it('with Redis frozen (connections open, nothing answers), B stops trusting within the heartbeat bound', async () => {
    await until(
      'both buses live',
      async () => t.app.bus.liveSince() < Number.POSITIVE_INFINITY && b.bus.liveSince() < Number.POSITIVE_INFINITY,
      60,
    );
    const { token } = await trustedOnB();
    redis.freeze();
    try {
      await sleep(BUS_SILENCE_MS + 2 * BUS_HEARTBEAT_MS);
      expect(b.bus.liveSince()).toBe(Number.POSITIVE_INFINITY);
      const logout = await t.call('logout', { token });
      expect(logout.body).toMatchObject({ success: true, message: 'Logged out' });
      await expectRefusedOnB(token);
    } finally {
      redis.thaw();
    }
  });
});
