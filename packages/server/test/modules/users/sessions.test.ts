import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { createUser, login, profileStatus, userId } from './support.js';

const t = useTestApp();

/** Session ids of a user, newest first. */
async function sessionIds(userId: number): Promise<number[]> {
  const rows = await t.db.selectFrom('sessions').select('id').where('user_id', '=', userId).orderBy('id', 'desc').execute();
  return rows.map((r) => r.id);
}

describe('GET /admin/users/sessions (listSessions)', () => {
  it('lists one account’s sessions newest first, and filters open and ended ones', async () => {
    const user = await createUser(t);
    await login(t, user.username);
    await login(t, user.username);
    const [newest, oldest] = await sessionIds(user.id);
    const token = await t.token('supervisor');

    const res = await t.call('listSessions', { token, query: { userId: user.id } });
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([newest, oldest]);
    expect(res.body.result.data[0]).toMatchObject({ userId: user.id, username: user.username, isActive: true, revokedAt: null });
    expect(res.body.result.meta).toMatchObject({ total: 2, current_page: 1 });

    await t.call('revokeSession', { token, params: { id: oldest! } });
    const open = await t.call('listSessions', { token, query: { userId: user.id, active: true } });
    expect(idsOf(open)).toEqual([newest]);
    const ended = await t.call('listSessions', { token, query: { userId: user.id, active: false } });
    expect(idsOf(ended)).toEqual([oldest]);
    expect(ended.body.result.data[0]!.isActive).toBe(false);
  });

  it('counts an expired session as ended', async () => {
    const user = await createUser(t);
    const expired = await t.db
      .insertInto('sessions')
      .values({ user_id: user.id, expires_at: new Date(Date.now() - 60_000) })
      .returning('id')
      .executeTakeFirstOrThrow();
    const token = await t.token('supervisor');
    const ended = await t.call('listSessions', { token, query: { userId: user.id, active: false } });
    expect(ended.body.result.data).toMatchObject([{ id: expired.id, isActive: false, revokedAt: null }]);
    const open = await t.call('listSessions', { token, query: { userId: user.id, active: true } });
    expect(open.body.result.meta.total).toBe(0);
  });

  it('refuses a team manager with 403 FORBIDDEN', async () => {
    const res = await t.call('listSessions', { token: await t.token('manager') });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['supervisor', 'admin', 'super_admin'] });
  });
});

describe('GET /admin/users/sessions/{id} (getSessionById)', () => {
  it('returns one session with its client', async () => {
    const user = await createUser(t);
    await t.call('login', { body: { username: user.username, password: 'Secret#2026' }, headers: { 'user-agent': 'fleet-app/2.1' } });
    const [id] = await sessionIds(user.id);
    const res = await t.call('getSessionById', { token: await t.token('supervisor'), params: { id: id! } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      userId: user.id,
      username: user.username,
      userAgent: 'fleet-app/2.1',
      isActive: true,
      revokedAt: null,
    });
    expect(new Date(res.body.result.expiresAt).getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600_000);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown session', async () => {
    const res = await t.call('getSessionById', { token: await t.token('supervisor'), params: { id: 999999 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'session', id: 999999 });
  });
});

describe('DELETE /admin/users/sessions/{id} (revokeSession)', () => {
  it('ends that session at once while the user’s other session keeps working', async () => {
    const user = await createUser(t);
    const first = await login(t, user.username);
    const second = await login(t, user.username);
    const [secondId, firstId] = await sessionIds(user.id);
    expect(await profileStatus(t, first.access_token)).toBe(200);

    const res = await t.call('revokeSession', { token: await t.token('supervisor'), params: { id: firstId! } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect(await profileStatus(t, first.access_token)).toBe(401);
    expect((await t.call('refreshToken', { body: { refresh_token: first.refresh_token } })).status).toBe(401);
    expect(await profileStatus(t, second.access_token)).toBe(200);

    const shown = await t.call('getSessionById', { token: await t.token('supervisor'), params: { id: firstId! } });
    expect(shown.body.result.isActive).toBe(false);
    expect(shown.body.result.revokedAt).toEqual(expect.any(String));
    const other = await t.call('getSessionById', { token: await t.token('supervisor'), params: { id: secondId! } });
    expect(other.body.result.isActive).toBe(true);
  });

  it('answers 200 unchanged for a session already revoked or expired', async () => {
    const user = await createUser(t);
    await login(t, user.username);
    const [id] = await sessionIds(user.id);
    const token = await t.token('supervisor');
    await t.call('revokeSession', { token, params: { id: id! } });
    const before = await t.db.selectFrom('sessions').select('revoked_at').where('id', '=', id!).executeTakeFirstOrThrow();
    const again = await t.call('revokeSession', { token, params: { id: id! } });
    expect(again.status).toBe(200);
    const after = await t.db.selectFrom('sessions').select('revoked_at').where('id', '=', id!).executeTakeFirstOrThrow();
    expect(after.revoked_at).toEqual(before.revoked_at);

    const expired = await t.db
      .insertInto('sessions')
      .values({ user_id: user.id, expires_at: new Date(Date.now() - 60_000) })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await t.call('revokeSession', { token, params: { id: expired.id } })).status).toBe(200);
    const untouched = await t.db.selectFrom('sessions').select('revoked_at').where('id', '=', expired.id).executeTakeFirstOrThrow();
    expect(untouched.revoked_at).toBeNull();
  });

  it('refuses the session the request is made with (409 SELF_ACTION_FORBIDDEN) but revokes the caller’s other one', async () => {
    const supervisor = await createUser(t, { roleId: 5 });
    const current = await login(t, supervisor.username);
    const [currentId] = await sessionIds(supervisor.id);
    const other = await login(t, supervisor.username);
    const [otherId] = await sessionIds(supervisor.id);

    const self = await t.call('revokeSession', { token: current.access_token, params: { id: currentId! } });
    expect(self.status).toBe(409);
    expect(self.body.errors).toEqual({ code: 'SELF_ACTION_FORBIDDEN', action: 'revoke' });

    const res = await t.call('revokeSession', { token: current.access_token, params: { id: otherId! } });
    expect(res.status).toBe(200);
    expect(await profileStatus(t, other.access_token)).toBe(401);
    expect(await profileStatus(t, current.access_token)).toBe(200);
  });

  it('refuses a session of an account above the caller’s level with 403 FORBIDDEN', async () => {
    await t.token('admin');
    const [adminSession] = await sessionIds(await userId(t, 'admin'));
    const res = await t.call('revokeSession', { token: await t.token('supervisor'), params: { id: adminSession! } });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
    expect(await profileStatus(t, await t.token('admin'))).toBe(200);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown session', async () => {
    const res = await t.call('revokeSession', { token: await t.token('supervisor'), params: { id: 999999 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'session', id: 999999 });
  });
});

describe('DELETE /admin/users/{id}/sessions (revokeUserSessions)', () => {
  it('ends every open session of the user, counting neither expired nor already revoked ones; the account stays active', async () => {
    const user = await createUser(t);
    const one = await login(t, user.username);
    const two = await login(t, user.username);
    const three = await login(t, user.username);
    const [threeId] = await sessionIds(user.id);
    const token = await t.token('supervisor');
    await t.call('revokeSession', { token, params: { id: threeId! } });
    await t.db
      .insertInto('sessions')
      .values({ user_id: user.id, expires_at: new Date(Date.now() - 60_000) })
      .execute();

    const res = await t.call('revokeUserSessions', { token, params: { id: user.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ revokedCount: 2 });
    expect(await profileStatus(t, one.access_token)).toBe(401);
    expect(await profileStatus(t, two.access_token)).toBe(401);
    expect(await profileStatus(t, three.access_token)).toBe(401);

    const again = await t.call('revokeUserSessions', { token, params: { id: user.id } });
    expect(again.body.result).toEqual({ revokedCount: 0 });
    expect((await t.call('getUserById', { token, params: { id: user.id } })).body.result.isActive).toBe(true);
    expect((await login(t, user.username)).access_token).toEqual(expect.any(String));
  });

  it('refuses the caller’s own account with 409 SELF_ACTION_FORBIDDEN', async () => {
    const res = await t.call('revokeUserSessions', { token: await t.token('supervisor'), params: { id: await userId(t, 'supervisor') } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'SELF_ACTION_FORBIDDEN', action: 'revoke' });
  });

  it('refuses an account above the caller’s level with 403 FORBIDDEN and answers 404 for an unknown one', async () => {
    const above = await t.call('revokeUserSessions', { token: await t.token('supervisor'), params: { id: await userId(t, 'admin') } });
    expect(above.status).toBe(403);
    expect(above.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
    const unknown = await t.call('revokeUserSessions', { token: await t.token('supervisor'), params: { id: 999999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 999999 });
  });
});
