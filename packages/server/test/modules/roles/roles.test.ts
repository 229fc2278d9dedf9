import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { createUser, login, newUserBody, profileStatus, superAdminToken } from '../users/support.js';

const t = useTestApp();
let root: string;
beforeAll(async () => {
  root = await superAdminToken(t);
});

let sequence = 0;
const uniqueCode = (prefix: string) => `${prefix}_${Date.now().toString(36).toUpperCase()}${sequence++}`;

async function createRole(body: Record<string, unknown> = {}) {
  const res = await t.call('createConfigRole', {
    token: root,
    body: { code: uniqueCode('DESK'), name: 'Dispatch desk', description: 'Custom role', accessLevel: 'agent', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; code: string; accessLevel: string };
}

describe('GET /admin/configurations/roles (listConfigRoles)', () => {
  it('lists the five system roles by id with the number of accounts holding each', async () => {
    const res = await t.call('listConfigRoles', { token: await t.token('supervisor') });
    expect(res.status).toBe(200);
    const system = res.body.result.data.slice(0, 5);
    expect(system.map((r: { id: number; code: string }) => [r.id, r.code])).toEqual([
      [1, 'SUPER_ADMIN'],
      [2, 'ADMIN'],
      [3, 'AGENT'],
      [4, 'TEAM_MANAGER'],
      [5, 'SUPERVISOR'],
    ]);
    expect(system[2]).toMatchObject({ accessLevel: 'agent', isSystem: true, isActive: true });
    const agents = await t.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role_id', '=', 3)
      .executeTakeFirstOrThrow();
    expect(system[2]!.usersCount).toBe(Number(agents.n));
  });

  it('searches code and name and filters by active state', async () => {
    const token = await t.token('supervisor');
    const search = await t.call('listConfigRoles', { token, query: { search: 'manager' } });
    expect(search.body.result.data.map((r: { code: string }) => r.code)).toEqual(['TEAM_MANAGER']);
    const inactive = await createRole();
    await t.call('setConfigRoleStatus', { token: root, params: { id: inactive.id }, body: { isActive: false } });
    const list = await t.call('listConfigRoles', { token, query: { isActive: false, limit: 100 } });
    expect(idsOf(list)).toContain(inactive.id);
    expect(list.body.result.data.every((r: { isActive: boolean }) => !r.isActive)).toBe(true);
  });
});

describe('POST /admin/configurations/roles (createConfigRole)', () => {
  it('creates an active custom role that can be given to accounts', async () => {
    const code = uniqueCode('DISPATCH_LEAD');
    const res = await t.call('createConfigRole', {
      token: root,
      body: { code, name: 'Dispatch lead', description: 'Leads a dispatch desk', accessLevel: 'team_manager' },
    });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({
      code,
      name: 'Dispatch lead',
      description: 'Leads a dispatch desk',
      accessLevel: 'team_manager',
      isSystem: false,
      isActive: true,
      usersCount: 0,
    });
    const holder = await createUser(t, { roleId: res.body.result.id });
    expect(holder).toMatchObject({ role: { id: res.body.result.id, code, accessLevel: 'team_manager' } });
    // Its holders may call what team managers may call.
    const { access_token } = await login(t, holder.username);
    expect((await t.call('listUsers', { token: access_token })).status).toBe(200);
  });
});

describe('GET /admin/configurations/roles/{id} (getConfigRoleById)', () => {
  it('returns one role', async () => {
    const res = await t.call('getConfigRoleById', { token: await t.token('supervisor'), params: { id: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: 5, code: 'SUPERVISOR', accessLevel: 'supervisor', isSystem: true });
  });
});

describe('PATCH /admin/configurations/roles/{id} (updateConfigRole)', () => {
  it('renames a system role but refuses a change of its code or access level with 409 NOT_EDITABLE', async () => {
    const renamed = await t.call('updateConfigRole', {
      token: root,
      params: { id: 3 },
      body: { name: 'Field agent', description: 'Own records only' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.result).toMatchObject({
      id: 3,
      code: 'AGENT',
      name: 'Field agent',
      description: 'Own records only',
      accessLevel: 'agent',
    });

    const sameCode = await t.call('updateConfigRole', { token: root, params: { id: 3 }, body: { code: 'AGENT', name: 'Agent' } });
    expect(sameCode.status).toBe(200);

    for (const body of [{ code: 'FIELD_AGENT' }, { accessLevel: 'supervisor' }]) {
      const res = await t.call('updateConfigRole', { token: root, params: { id: 3 }, payload: body });
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'role', id: 3, status: 'SYSTEM' });
    }
    const unchanged = await t.db.selectFrom('roles').select(['code', 'access_level']).where('id', '=', 3).executeTakeFirstOrThrow();
    expect(unchanged).toEqual({ code: 'AGENT', access_level: 'agent' });
  });

  it('ends the sessions of every holder when a custom role’s access level changes', async () => {
    const role = await createRole({ accessLevel: 'agent' });
    const holder = await createUser(t, { roleId: role.id });
    const before = await login(t, holder.username);
    expect((await t.call('listUsers', { token: before.access_token })).status).toBe(403);
    const bystander = await login(t, 'agent', 'demo1234');

    const res = await t.call('updateConfigRole', { token: root, params: { id: role.id }, body: { accessLevel: 'team_manager' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: role.id, accessLevel: 'team_manager', usersCount: 1 });
    expect(await profileStatus(t, before.access_token)).toBe(401);
    expect((await t.call('refreshToken', { body: { refresh_token: before.refresh_token } })).status).toBe(401);
    expect(await profileStatus(t, bystander.access_token)).toBe(200);

    const after = await login(t, holder.username);
    expect((await t.call('listUsers', { token: after.access_token })).status).toBe(200);
  });

  it('keeps the holders’ sessions when only the name changes', async () => {
    const role = await createRole();
    const holder = await createUser(t, { roleId: role.id });
    const { access_token } = await login(t, holder.username);
    const res = await t.call('updateConfigRole', {
      token: root,
      params: { id: role.id },
      body: { name: 'Renamed desk', description: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ name: 'Renamed desk', description: null });
    expect(await profileStatus(t, access_token)).toBe(200);
  });
});

describe('DELETE /admin/configurations/roles/{id} (deleteConfigRole)', () => {
  it('refuses a system role with 409 NOT_EDITABLE', async () => {
    const res = await t.call('deleteConfigRole', { token: root, params: { id: 4 } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'role', id: 4, status: 'SYSTEM' });
  });
});

describe('PATCH /admin/configurations/roles/{id}/status (setConfigRoleStatus)', () => {
  it('deactivates a custom role: its holders keep working, but it can no longer be given', async () => {
    const role = await createRole();
    const holder = await createUser(t, { roleId: role.id });
    const { access_token } = await login(t, holder.username);
    const res = await t.call('setConfigRoleStatus', { token: root, params: { id: role.id }, body: { isActive: false } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: role.id, isActive: false, usersCount: 1 });
    expect(await profileStatus(t, access_token)).toBe(200);

    const refused = await t.call('createUser', { token: await t.token('admin'), body: newUserBody({ roleId: role.id }) });
    expect(refused.status).toBe(404);
    expect(refused.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'role', id: role.id });

    const again = await t.call('setConfigRoleStatus', { token: root, params: { id: role.id }, body: { isActive: false } });
    expect(again.status).toBe(200);
    const reactivated = await t.call('setConfigRoleStatus', { token: root, params: { id: role.id }, body: { isActive: true } });
    expect(reactivated.body.result.isActive).toBe(true);
  });

  it('refuses to deactivate a system role with 409 NOT_EDITABLE', async () => {
    const res = await t.call('setConfigRoleStatus', { token: root, params: { id: 3 }, body: { isActive: false } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'role', id: 3, status: 'SYSTEM' });
    const active = await t.call('setConfigRoleStatus', { token: root, params: { id: 3 }, body: { isActive: true } });
    expect(active.status).toBe(200);
    expect(active.body.result).toMatchObject({ id: 3, isActive: true });
  });
});
