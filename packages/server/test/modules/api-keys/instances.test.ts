import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { missing, type RedisServer, sleep, startRedis, until } from '../../ops/processes.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createUser, login } from '../users/support.js';

if (missing.redis) console.warn(`credential changes across instances skipped: ${missing.redis}`);

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: number };

/**
 * Two instances of the API on one database and a private Redis: what a credential may do is read
 * from the database on every request, so a change committed on A holds on B at B's next request,
 * with the bus live or Redis stopped.
 */
describe.skipIf(missing.redis)('credential changes hold on every instance at the next request', () => {
  let redis: RedisServer;
  let t: TestApp; // instance A (and the test's helpers)
  let b: FastifyInstance; // instance B, on the same database and Redis
  let admin: string;

  beforeAll(async () => {
    redis = await startRedis();
    const redisPrefix = `test:${randomBytes(6).toString('hex')}:`;
    t = await createTestApp({ redisUrl: redis.url, redisPrefix });
    b = await buildApp(Object.assign({}, t.app.config, { redisUrl: redis.url, redisPrefix }), { db: t.db });
    await b.ready();
    await until('both buses live', async () => t.app.bus.liveSince() < Infinity && b.bus.liveSince() < Infinity, 30);
    admin = await t.token('admin');
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await t?.close();
    await redis?.kill();
  });

  /** A GET on instance B: the status and the envelope. */
  const onB = async (url: string, headers: Record<string, string>) => {
    const res = await b.inject({ method: 'GET', url, headers });
    return { status: res.statusCode, body: res.json() as { success: boolean; errors: unknown; result: unknown } };
  };
  const keyOnB = (key: string | null, url = '/admin/users?limit=1') => {
    if (key === null) throw new Error('a key is shown in the answer that created it');
    return onB(url, { 'x-api-key': key });
  };
  const refusedKey = { status: 401, body: expect.objectContaining({ success: false, errors: ['API key is unknown or revoked'] }) };

  /** A new key of `level` (created on A), already used with success on B. */
  async function keyUsedOnB(level: string) {
    const role = await t.db
      .selectFrom('roles')
      .select('id')
      .where('access_level', '=', level as never)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const created = await t.call('createApiKey', { token: admin, body: { name: `Partner ${level}`, roleId: role.id } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const used = await keyOnB(created.body.result.key);
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    expect(used.body.success).toBe(true);
    return created.body.result;
  }

  it('refuses on B a key whose service account was deactivated on A', async () => {
    const key = await keyUsedOnB('supervisor');
    const res = await t.call('deactivateUser', { token: admin, params: { id: key.userId } });
    expect(res.body.result.isActive).toBe(false);
    expect(await keyOnB(key.key)).toEqual(refusedKey);
  });

  it('narrows on B a key whose service account was demoted on A', async () => {
    const key = await keyUsedOnB('supervisor');
    const agentRole = await t.db
      .selectFrom('roles')
      .select('id')
      .where('access_level', '=', 'agent')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const res = await t.call('updateUser', { token: admin, params: { id: key.userId }, body: { roleId: agentRole.id } });
    expect(res.body.result.role.accessLevel).toBe('agent');
    const refused = await keyOnB(key.key);
    expect(refused).toEqual({
      status: 403,
      body: expect.objectContaining({ success: false, errors: expect.objectContaining({ code: 'FORBIDDEN' }) }),
    });
    // What an agent may do, the key still does.
    const allowed = await keyOnB(key.key, '/trade/transports?limit=1');
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  });

  it('refuses on B a key whose service account was deleted on A, and deletes the key with it', async () => {
    const key = await keyUsedOnB('supervisor');
    const res = await t.call('deleteUser', { token: admin, params: { id: key.userId } });
    expect(res.body).toMatchObject({ success: true, message: 'User deleted' });
    expect(await keyOnB(key.key)).toEqual(refusedKey);
    expect(await t.db.selectFrom('api_keys').select('id').where('id', '=', key.id).execute()).toEqual([]);
  });

  it('refuses on B a session past its expires_at, to the second', async () => {
    const user = await createUser(t);
    const { access_token } = await login(t, user.username);
    const endsAt = new Date(Date.now() + 1000);
    await t.db.updateTable('sessions').set({ expires_at: endsAt }).where('id', '=', claimsOf(access_token).sid).execute();
    const before = await onB('/auth/profile', { authorization: `Bearer ${access_token}` });
    expect(before.status).toBe(200);
    await sleep(Math.max(0, endsAt.getTime() - Date.now()) + 5);
    expect(await onB('/auth/profile', { authorization: `Bearer ${access_token}` })).toEqual({
      status: 401,
      body: expect.objectContaining({ success: false, errors: ['Token has been revoked'] }),
    });
  });

  it('with Redis stopped, a revoked key, a deactivated key account and a logout on A hold on B at once', async () => {
    const revoked = await keyUsedOnB('admin');
    const deactivated = await keyUsedOnB('supervisor');
    const untouched = await keyUsedOnB('supervisor');
    const user = await createUser(t);
    const { access_token } = await login(t, user.username);
    expect((await onB('/auth/profile', { authorization: `Bearer ${access_token}` })).status).toBe(200);
    await redis.kill();

    const revoke = await t.call('revokeApiKey', { token: admin, params: { id: revoked.id } });
    expect(revoke.body).toMatchObject({ success: true, message: 'API key revoked' });
    expect(await keyOnB(revoked.key)).toEqual(refusedKey);

    const deactivate = await t.call('deactivateUser', { token: admin, params: { id: deactivated.userId } });
    expect(deactivate.body.result.isActive).toBe(false);
    expect(await keyOnB(deactivated.key)).toEqual(refusedKey);

    const logout = await t.call('logout', { token: access_token });
    expect(logout.body).toMatchObject({ success: true, message: 'Logged out' });
    expect(await onB('/auth/profile', { authorization: `Bearer ${access_token}` })).toEqual({
      status: 401,
      body: expect.objectContaining({ success: false, errors: ['Token has been revoked'] }),
    });

    const still = await keyOnB(untouched.key);
    expect(still.status, JSON.stringify(still.body)).toBe(200);
    expect(still.body.success).toBe(true);
  }, 60_000);
});
