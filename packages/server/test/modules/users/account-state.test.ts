import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { createUser, login, PASSWORD, profileStatus, superAdminToken, userId } from './support.js';

const t = useTestApp();

describe('DELETE /admin/users/{id} (deleteUser)', () => {
  it('deletes an account without records, with its actor and sessions; its token stops working at once', async () => {
    const user = await createUser(t);
    const { access_token } = await login(t, user.username);
    const res = await t.call('deleteUser', { token: await t.token('admin'), params: { id: user.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect(await profileStatus(t, access_token)).toBe(401);
    expect((await t.call('getUserById', { token: await t.token('admin'), params: { id: user.id } })).status).toBe(404);
    expect(await t.db.selectFrom('actors').select('id').where('id', '=', user.actorId!).executeTakeFirst()).toBeUndefined();
    expect(await t.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()).toHaveLength(0);
  });

  it('refuses an account that created records with 409 RESOURCE_IN_USE and its usage count', async () => {
    const id = await userId(t, 'agent');
    const res = await t.call('deleteUser', { token: await t.token('admin'), params: { id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toMatchObject({ code: 'RESOURCE_IN_USE', resource: 'user', id });
    expect(res.body.errors.usageCount).toBeGreaterThan(0);
    expect(await t.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()).toBeDefined();
  });

  it('refuses an account that manages an organization with 409 RESOURCE_IN_USE', async () => {
    const user = await createUser(t, { roleId: 4 });
    await t.db.updateTable('organizations').set({ manager_user_id: user.id }).where('code', '=', 'TOG-FRN-BETA').execute();
    const res = await t.call('deleteUser', { token: await t.token('admin'), params: { id: user.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'user', id: user.id, usageCount: 1 });
  });

  it('refuses the caller’s own account with 409 SELF_ACTION_FORBIDDEN', async () => {
    const res = await t.call('deleteUser', { token: await t.token('admin'), params: { id: await userId(t, 'admin') } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'SELF_ACTION_FORBIDDEN', action: 'delete' });
  });

  it('refuses an account above the caller’s level with 403 FORBIDDEN', async () => {
    const superAdmin = await createUser(t, { roleId: 2 });
    await t.db.updateTable('users').set({ role_id: 1 }).where('id', '=', superAdmin.id).execute();
    const res = await t.call('deleteUser', { token: await t.token('admin'), params: { id: superAdmin.id } });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['super_admin'] });
    // A super administrator may.
    const allowed = await t.call('deleteUser', { token: await superAdminToken(t), params: { id: superAdmin.id } });
    expect(allowed.status).toBe(200);
  });

  it('refuses a supervisor with 403 FORBIDDEN and answers 404 for an unknown account', async () => {
    const user = await createUser(t);
    const supervisor = await t.call('deleteUser', { token: await t.token('supervisor'), params: { id: user.id } });
    expect(supervisor.status).toBe(403);
    expect(supervisor.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
    const unknown = await t.call('deleteUser', { token: await t.token('admin'), params: { id: 999999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 999999 });
  });
});

describe('POST /admin/users/{id}/deactivate (deactivateUser)', () => {
  it('deactivates the account and its actor, ends its sessions at once and refuses its login and refresh', async () => {
    const user = await createUser(t);
    const { access_token, refresh_token } = await login(t, user.username);
    const res = await t.call('deactivateUser', { token: await t.token('supervisor'), params: { id: user.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: user.id, isActive: false });
    expect(await profileStatus(t, access_token)).toBe(401);
    expect((await t.call('refreshToken', { body: { refresh_token } })).status).toBe(401);
    expect((await t.call('login', { body: { username: user.username, password: PASSWORD } })).status).toBe(401);
    const actor = await t.db.selectFrom('actors').select('is_active').where('id', '=', user.actorId!).executeTakeFirstOrThrow();
    expect(actor.is_active).toBe(false);
    // Idempotent.
    const again = await t.call('deactivateUser', { token: await t.token('supervisor'), params: { id: user.id } });
    expect(again.status).toBe(200);
    expect(again.body.result.isActive).toBe(false);
  });

  it('refuses the caller’s own account with 409 SELF_ACTION_FORBIDDEN', async () => {
    const res = await t.call('deactivateUser', { token: await t.token('supervisor'), params: { id: await userId(t, 'supervisor') } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'SELF_ACTION_FORBIDDEN', action: 'deactivate' });
  });

  it('refuses an account above the caller’s level with 403 FORBIDDEN and answers 404 for an unknown one', async () => {
    const above = await t.call('deactivateUser', { token: await t.token('supervisor'), params: { id: await userId(t, 'admin') } });
    expect(above.status).toBe(403);
    expect(above.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
    const unknown = await t.call('deactivateUser', { token: await t.token('supervisor'), params: { id: 999999 } });
    expect(unknown.status).toBe(404);
  });

  it('refuses a team manager with 403 FORBIDDEN', async () => {
    const res = await t.call('deactivateUser', { token: await t.token('manager'), params: { id: await userId(t, 'agent') } });
    expect(res.status).toBe(403);
    expect(res.body.errors).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('POST /admin/users/{id}/activate (activateUser)', () => {
  it('reactivates the account and its actor: the user can log in again', async () => {
    const user = await createUser(t);
    await t.call('deactivateUser', { token: await t.token('supervisor'), params: { id: user.id } });
    const res = await t.call('activateUser', { token: await t.token('supervisor'), params: { id: user.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: user.id, isActive: true });
    const actor = await t.db.selectFrom('actors').select('is_active').where('id', '=', user.actorId!).executeTakeFirstOrThrow();
    expect(actor.is_active).toBe(true);
    expect((await login(t, user.username)).access_token).toEqual(expect.any(String));
  });

  it('refuses an account above the caller’s level with 403 FORBIDDEN and answers 404 for an unknown one', async () => {
    const above = await t.call('activateUser', { token: await t.token('supervisor'), params: { id: await userId(t, 'admin') } });
    expect(above.status).toBe(403);
    expect(above.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
    const unknown = await t.call('activateUser', { token: await t.token('supervisor'), params: { id: 999999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 999999 });
  });
});

describe('PUT /admin/users/{id}/password (changeUserPassword)', () => {
  it('sets an argon2id hash of the new password and ends every session of the user at once', async () => {
    const user = await createUser(t);
    const one = await login(t, user.username);
    const two = await login(t, user.username);
    const before = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    const res = await t.call('changeUserPassword', {
      token: await t.token('supervisor'),
      params: { id: user.id },
      body: { newPassword: 'Plateau!2026', confirmPassword: 'Plateau!2026' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect(await profileStatus(t, one.access_token)).toBe(401);
    expect(await profileStatus(t, two.access_token)).toBe(401);
    expect((await t.call('refreshToken', { body: { refresh_token: one.refresh_token } })).status).toBe(401);
    const after = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(after.password_hash).toMatch(/^\$argon2id\$/);
    expect(after.password_hash).not.toBe(before.password_hash);
    expect((await t.call('login', { body: { username: user.username, password: PASSWORD } })).status).toBe(401);
    expect((await login(t, user.username, 'Plateau!2026')).access_token).toEqual(expect.any(String));
  });

  it('lets callers change their own password, which ends their own sessions too', async () => {
    const supervisor = await createUser(t, { roleId: 5 });
    const { access_token } = await login(t, supervisor.username);
    const res = await t.call('changeUserPassword', {
      token: access_token,
      params: { id: supervisor.id },
      body: { newPassword: 'Mine#2026', confirmPassword: 'Mine#2026' },
    });
    expect(res.status).toBe(200);
    expect(await profileStatus(t, access_token)).toBe(401);
  });

  it('refuses a confirmation that differs with 400 naming confirmPassword', async () => {
    const user = await createUser(t);
    const res = await t.call('changeUserPassword', {
      token: await t.token('supervisor'),
      params: { id: user.id },
      body: { newPassword: 'Plateau!2026', confirmPassword: 'Plateau!2027' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/confirmPassword must be equal to newPassword']);
  });

  it('refuses an account above the caller’s level with 403 FORBIDDEN and answers 404 for an unknown one', async () => {
    const body = { newPassword: 'Plateau!2026', confirmPassword: 'Plateau!2026' };
    const above = await t.call('changeUserPassword', {
      token: await t.token('supervisor'),
      params: { id: await userId(t, 'admin') },
      body,
    });
    expect(above.status).toBe(403);
    expect(above.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
    const unknown = await t.call('changeUserPassword', { token: await t.token('supervisor'), params: { id: 999999 }, body });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 999999 });
  });
});
