import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { expectInvalid, expectNotFound, expectRoleRefused } from '../../support/expect.js';
import { actorIdOf, createAccount, login, organizationId, superAdmin, uniqueEmail } from './fixtures.js';

const t = useTestApp();
let root: Awaited<ReturnType<typeof superAdmin>>;
let tog: number;

beforeAll(async () => {
  root = await superAdmin(t);
  tog = await organizationId(t, 'TOG');
});

async function newAdmin(body: Record<string, unknown> = {}) {
  const res = await t.call('createAdmin', {
    token: root.token,
    body: { firstName: 'Awa', lastName: 'Traoré', email: uniqueEmail('admin'), ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result;
}

describe('GET /admin/actors/admins (listAdmins)', () => {
  it('lists administrators with their organization and account, filtered and sorted', async () => {
    const admin = await t.token('admin');
    const res = await t.call('listAdmins', { token: admin, query: { search: 'dubois', limit: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.result.meta).toEqual({ total: 1, current_page: 1, total_pages: 1, limit: 5, total_is_exact: true });
    expect(res.body.result.data[0]).toMatchObject({
      actorRole: 'ADMIN',
      firstName: 'Claire',
      lastName: 'Dubois',
      email: 'admin@transport-ops.example',
      organization: { id: tog, name: 'Transport Ops Group' },
      user: { username: 'admin' },
      isActive: true,
    });

    const zed = await newAdmin({ firstName: 'Zoé', lastName: 'Zidane', organizationId: tog });
    const inactive = await newAdmin({ lastName: 'Abel' });
    await t.call('deactivateAdmin', { token: root.token, params: { id: inactive.id } });

    for (const lastName of ['Sortb', 'Sortc', 'Sorta']) await newAdmin({ lastName });
    const byName = await t.call('listAdmins', { token: admin, query: { search: 'Sort', sortBy: 'lastName', sortOrder: 'ASC' } });
    expect(byName.body.result.data.map((a: { lastName: string }) => a.lastName)).toEqual(['Sorta', 'Sortb', 'Sortc']);
    const desc = await t.call('listAdmins', { token: admin, query: { search: 'Sort', sortBy: 'lastName', sortOrder: 'DESC' } });
    expect(desc.body.result.data.map((a: { lastName: string }) => a.lastName)).toEqual(['Sortc', 'Sortb', 'Sorta']);
    const all = await t.call('listAdmins', { token: admin, query: { limit: 100 } });
    expect(all.body.result.data.every((a: { actorRole: string }) => a.actorRole === 'ADMIN')).toBe(true);

    const onlyInactive = await t.call('listAdmins', { token: admin, query: { isActive: false } });
    expect(idsOf(onlyInactive)).toEqual([inactive.id]);

    const inTog = await t.call('listAdmins', { token: admin, query: { organizationId: tog, search: 'zidane' } });
    expect(idsOf(inTog)).toEqual([zed.id]);
  });

  it('pages the list', async () => {
    const res = await t.call('listAdmins', { token: await t.token('admin'), query: { limit: 1, page: 2 } });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toHaveLength(1);
    expect(res.body.result.meta.current_page).toBe(2);
    expect(res.body.result.meta.total_pages).toBe(res.body.result.meta.total);
  });

  it('refuses a supervisor with 403 FORBIDDEN', async () => {
    const res = await t.call('listAdmins', { token: await t.token('supervisor') });
    expect(res.status).toBe(403);
    expect(res.body.errors.code).toBe('FORBIDDEN');
  });

  it('refuses an unknown sort field with 400', async () => {
    const res = await t.call('listAdmins', { token: await t.token('admin'), query: { sortBy: 'email' } });
    expectInvalid(res, /^querystring\/sortBy must be one of: /);
  });
});

describe('POST /admin/actors/admins (createAdmin)', () => {
  it('creates an active administrator linked to an account of admin level, both ways', async () => {
    const account = await createAccount(t, { level: 'admin' });
    const email = uniqueEmail('seydou');
    const res = await t.call('createAdmin', {
      token: root.token,
      body: {
        firstName: 'Seydou',
        lastName: 'Diallo',
        email,
        phone: '+2250707112233',
        address: 'Plateau, Abidjan',
        organizationId: tog,
        userId: account.userId,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toMatchObject({
      actorRole: 'ADMIN',
      firstName: 'Seydou',
      lastName: 'Diallo',
      email,
      phone: '+2250707112233',
      address: 'Plateau, Abidjan',
      organization: { id: tog, name: 'Transport Ops Group' },
      user: { id: account.userId, username: account.username },
      isActive: true,
    });
    const user = await t.db.selectFrom('users').select('actor_id').where('id', '=', account.userId).executeTakeFirstOrThrow();
    expect(user.actor_id).toBe(res.body.result.id);
  });

  it('refuses an account of agent level with 400', async () => {
    const account = await createAccount(t, { level: 'agent' });
    const res = await t.call('createAdmin', { token: root.token, body: { firstName: 'A', lastName: 'B', userId: account.userId } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/userId must reference an account of level admin or super_admin']);
  });

  it('refuses an account that already has an actor with 409 ALREADY_EXISTS on userId', async () => {
    const adminUser = await t.db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow();
    const res = await t.call('createAdmin', { token: root.token, body: { firstName: 'A', lastName: 'B', userId: adminUser.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'actor', field: 'userId', value: String(adminUser.id) });
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown organization or account', async () => {
    const org = await t.call('createAdmin', { token: root.token, body: { firstName: 'A', lastName: 'B', organizationId: 9999 } });
    expect(org.status).toBe(404);
    expect(org.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'organization', id: 9999 });
    const user = await t.call('createAdmin', { token: root.token, body: { firstName: 'A', lastName: 'B', userId: 9999 } });
    expect(user.status).toBe(404);
    expect(user.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 9999 });
  });

  it('refuses an inactive organization with 400', async () => {
    const org = await t.call('createOrganization', {
      token: await t.token('admin'),
      body: { name: 'Closed branch', code: 'CLOSED-ADM', type: 'REGION' },
    });
    await t.call('updateOrganization', { token: await t.token('admin'), params: { id: org.body.result.id }, body: { isActive: false } });
    const res = await t.call('createAdmin', {
      token: root.token,
      body: { firstName: 'A', lastName: 'B', organizationId: org.body.result.id },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/organizationId must reference an active organization']);
  });

  it('refuses an e-mail used by another administrator, whatever its case, with 409 ALREADY_EXISTS', async () => {
    const res = await t.call('createAdmin', {
      token: root.token,
      body: { firstName: 'A', lastName: 'B', email: 'ADMIN@transport-ops.example' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors).toMatchObject({ code: 'ALREADY_EXISTS', resource: 'actor', field: 'email' });
  });

  it('accepts the e-mail of an agent (families are separate)', async () => {
    const res = await t.call('createAdmin', {
      token: root.token,
      body: { firstName: 'Sarah', lastName: 'Benali', email: 'agent@transport-ops.example' },
    });
    expect(res.status).toBe(201);
    expect(res.body.result.email).toBe('agent@transport-ops.example');
  });

  it('lets exactly one of parallel creations with the same e-mail win', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(
      Array.from({ length: 4 }, () => t.call('createAdmin', { token: root.token, body: { firstName: 'Race', lastName: 'Admin', email } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const rows = await t.db.selectFrom('actors').select('id').where('actor_role', '=', 'ADMIN').where('email', '=', email).execute();
    expect(rows).toHaveLength(1);
  });

  it('lets exactly one of parallel creations linking the same account win', async () => {
    const account = await createAccount(t, { level: 'admin' });
    const results = await Promise.all(
      Array.from({ length: 3 }, () =>
        t.call('createAdmin', { token: root.token, body: { firstName: 'Race', lastName: 'Link', userId: account.userId } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const rows = await t.db.selectFrom('actors').select('id').where('user_id', '=', account.userId).execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses an admin (not super_admin) with 403 FORBIDDEN', async () => {
    const res = await t.call('createAdmin', { token: await t.token('admin'), body: { firstName: 'A', lastName: 'B' } });
    expect(res.status).toBe(403);
    expect(res.body.errors.code).toBe('FORBIDDEN');
  });
});

describe('GET /admin/actors/admins/{id} (getAdminById)', () => {
  it('returns the administrator', async () => {
    const id = await actorIdOf(t, 'admin');
    const res = await t.call('getAdminById', { token: await t.token('admin'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id, firstName: 'Claire', lastName: 'Dubois', user: { username: 'admin' } });
  });

  it('answers 404 for an unknown id and for an agent id', async () => {
    const admin = await t.token('admin');
    const unknown = await t.call('getAdminById', { token: admin, params: { id: 99999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'actor', id: 99999 });
    const agentId = await actorIdOf(t, 'agent');
    const other = await t.call('getAdminById', { token: admin, params: { id: agentId } });
    expect(other.status).toBe(404);
  });
});

describe('PATCH /admin/actors/admins/{id} (updateAdmin)', () => {
  it('changes the fields sent and clears nullable ones with null', async () => {
    const created = await newAdmin({ phone: '+33612345678', address: 'Lyon', organizationId: tog });
    const email = uniqueEmail('renamed');
    const res = await t.call('updateAdmin', {
      token: root.token,
      params: { id: created.id },
      body: { lastName: 'Koné', email, phone: null, organizationId: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id: created.id,
      firstName: 'Awa',
      lastName: 'Koné',
      email,
      phone: null,
      address: 'Lyon',
      organization: null,
    });
    expect(new Date(res.body.result.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(created.updatedAt).getTime());
  });

  it('keeps its own e-mail in another case', async () => {
    const created = await newAdmin();
    const res = await t.call('updateAdmin', {
      token: root.token,
      params: { id: created.id },
      body: { email: created.email!.toUpperCase() },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.email).toBe(created.email!.toUpperCase());
  });

  it('refuses the e-mail of another administrator with 409 ALREADY_EXISTS', async () => {
    const created = await newAdmin();
    const res = await t.call('updateAdmin', {
      token: root.token,
      params: { id: created.id },
      body: { email: 'admin@transport-ops.example' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'actor', field: 'email', value: 'admin@transport-ops.example' });
  });

  it('answers 404 for an unknown administrator or organization', async () => {
    const unknown = await t.call('updateAdmin', { token: root.token, params: { id: 99999 }, body: { firstName: 'X' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors.resource).toBe('actor');
    const created = await newAdmin();
    const org = await t.call('updateAdmin', { token: root.token, params: { id: created.id }, body: { organizationId: 9999 } });
    expect(org.status).toBe(404);
    expect(org.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'organization', id: 9999 });
  });

  it('refuses an empty body with 400', async () => {
    const created = await newAdmin();
    const res = await t.call('updateAdmin', { token: root.token, params: { id: created.id }, body: {} });
    expectInvalid(res, /^body must NOT have fewer than 1 properties/);
  });
});

describe('DELETE /admin/actors/admins/{id} (deleteAdmin)', () => {
  it('deletes an administrator without account', async () => {
    const created = await newAdmin();
    const res = await t.call('deleteAdmin', { token: root.token, params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    const after = await t.call('getAdminById', { token: root.token, params: { id: created.id } });
    expect(after.status).toBe(404);
  });

  it('refuses an administrator linked to an account with 409 RESOURCE_IN_USE', async () => {
    const id = await actorIdOf(t, 'admin');
    const res = await t.call('deleteAdmin', { token: root.token, params: { id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'actor', id, usageCount: 1 });
  });

  it('answers 404 for an unknown administrator', async () => {
    const res = await t.call('deleteAdmin', { token: root.token, params: { id: 99999 } });
    expectNotFound(res, 'actor', 99999);
  });
});

describe('POST /admin/actors/admins/{id}/activate and /deactivate', () => {
  it('deactivates the administrator and its account, whose token stops working at once, then reactivates both', async () => {
    const account = await createAccount(t, { level: 'admin', actor: 'ADMIN' });
    const token = await login(t, account.username);
    expect((await t.call('getProfile', { token })).status).toBe(200);

    const off = await t.call('deactivateAdmin', { token: root.token, params: { id: account.actorId! } });
    expect(off.status).toBe(200);
    expect(off.body.result).toMatchObject({ id: account.actorId, isActive: false, user: { id: account.userId } });
    const profile = await t.call('getProfile', { token });
    expect(profile.status).toBe(401);
    const user = await t.db.selectFrom('users').select('is_active').where('id', '=', account.userId).executeTakeFirstOrThrow();
    expect(user.is_active).toBe(false);
    const sessions = await t.db.selectFrom('sessions').select('revoked_at').where('user_id', '=', account.userId).execute();
    expect(sessions.every((s) => s.revoked_at !== null)).toBe(true);

    const again = await t.call('deactivateAdmin', { token: root.token, params: { id: account.actorId! } });
    expect(again.status).toBe(200);
    expect(again.body.result.updatedAt).toBe(off.body.result.updatedAt);

    const on = await t.call('activateAdmin', { token: root.token, params: { id: account.actorId! } });
    expect(on.status).toBe(200);
    expect(on.body.result.isActive).toBe(true);
    const fresh = await login(t, account.username);
    expect((await t.call('getProfile', { token: fresh })).status).toBe(200);
  });

  it('answers an already active administrator unchanged', async () => {
    const created = await newAdmin();
    const res = await t.call('activateAdmin', { token: root.token, params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ isActive: true, updatedAt: created.updatedAt });
  });

  it("refuses to deactivate the caller's own actor with 409 SELF_ACTION_FORBIDDEN", async () => {
    const res = await t.call('deactivateAdmin', { token: root.token, params: { id: root.actorId! } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'SELF_ACTION_FORBIDDEN', action: 'deactivate' });
  });

  it('answers 404 for an unknown administrator', async () => {
    expectNotFound(await t.call('activateAdmin', { token: root.token, params: { id: 99999 } }), 'actor', 99999);
    expectNotFound(await t.call('deactivateAdmin', { token: root.token, params: { id: 99999 } }), 'actor', 99999);
  });

  it('refuses an admin (not super_admin) with 403 FORBIDDEN', async () => {
    const created = await newAdmin();
    const res = await t.call('deactivateAdmin', { token: await t.token('admin'), params: { id: created.id } });
    expectRoleRefused(res, 'deactivateAdmin');
    const still = await t.call('getAdminById', { token: root.token, params: { id: created.id } });
    expect(still.body.result.isActive).toBe(true);
  });
});

describe('POST /admin/actors/admins/bulk-action (bulkActionAdmins)', () => {
  it('deactivates each id on its own and reports the failures', async () => {
    const a = await newAdmin();
    const b = await newAdmin();
    const agentId = await actorIdOf(t, 'agent');
    const res = await t.call('bulkActionAdmins', {
      token: root.token,
      body: { action: 'DEACTIVATE', ids: [a.id, 99999, b.id, agentId, root.actorId!] },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      action: 'DEACTIVATE',
      processed: [a.id, b.id],
      failed: [
        { id: 99999, code: 'RESOURCE_NOT_FOUND', message: 'Admin 99999 not found' },
        { id: agentId, code: 'RESOURCE_NOT_FOUND', message: `Admin ${agentId} not found` },
        { id: root.actorId, code: 'SELF_ACTION_FORBIDDEN', message: `Admin ${root.actorId} is your own actor` },
      ],
    });
    const rows = await t.db.selectFrom('actors').select(['id', 'is_active']).where('id', 'in', [a.id, b.id, root.actorId!]).execute();
    const state = Object.fromEntries(rows.map((r) => [r.id, r.is_active]));
    expect(state).toEqual({ [a.id]: false, [b.id]: false, [root.actorId!]: true });

    const back = await t.call('bulkActionAdmins', { token: root.token, body: { action: 'ACTIVATE', ids: [a.id, b.id] } });
    expect(back.body.result).toEqual({ action: 'ACTIVATE', processed: [a.id, b.id], failed: [] });
  });

  it('deletes the unreferenced ones and keeps the referenced ones', async () => {
    const a = await newAdmin();
    const linked = await actorIdOf(t, 'admin');
    const res = await t.call('bulkActionAdmins', { token: root.token, body: { action: 'DELETE', ids: [linked, a.id, root.actorId!] } });
    expect(res.status).toBe(200);
    expect(res.body.result.processed).toEqual([a.id]);
    expect(res.body.result.failed).toEqual([
      { id: linked, code: 'RESOURCE_IN_USE', message: `Admin ${linked} is still referenced` },
      { id: root.actorId, code: 'SELF_ACTION_FORBIDDEN', message: `Admin ${root.actorId} is your own actor` },
    ]);
    const left = await t.db.selectFrom('actors').select('id').where('id', 'in', [a.id, linked]).execute();
    expect(left.map((r) => r.id)).toEqual([linked]);
  });

  it('refuses duplicate ids with 400', async () => {
    const res = await t.call('bulkActionAdmins', { token: root.token, body: { action: 'ACTIVATE', ids: [1, 1] } });
    expectInvalid(res, /^body\/ids must NOT have duplicate items/);
  });

  it('refuses an admin (not super_admin) with 403 FORBIDDEN', async () => {
    const res = await t.call('bulkActionAdmins', { token: await t.token('admin'), body: { action: 'ACTIVATE', ids: [1] } });
    expectRoleRefused(res, 'bulkActionAdmins');
  });
});
