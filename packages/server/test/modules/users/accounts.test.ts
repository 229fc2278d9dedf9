import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { createUser, login, newUserBody, PASSWORD, profileStatus, userId } from './support.js';

const t = useTestApp();
let orgs: Record<string, number>;
let countries: Record<string, number>;
beforeAll(async () => {
  const orgRows = await t.db.selectFrom('organizations').select(['id', 'code']).execute();
  orgs = Object.fromEntries(orgRows.map((o) => [o.code, o.id]));
  const countryRows = await t.db.selectFrom('countries').select(['id', 'code']).execute();
  countries = Object.fromEntries(countryRows.map((c) => [c.code, c.id]));
});

describe('GET /admin/users (listUsers)', () => {
  it('lists every account to a supervisor, with role, country, organization and names, never a password hash', async () => {
    const res = await t.call('listUsers', { token: await t.token('supervisor'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    const agent = res.body.result.data.find((u: { username: string }) => u.username === 'agent');
    expect(agent).toMatchObject({
      email: 'agent@transport-ops.example',
      firstName: 'Sarah',
      lastName: 'Benali',
      role: { id: 3, code: 'AGENT', name: 'Agent', accessLevel: 'agent' },
      country: { code: 'FR', name: 'France' },
      organization: { id: orgs['TOG-FRN-ALPHA'], name: 'Team Alpha' },
      isActive: true,
    });
    expect(agent!.actorId).toEqual(expect.any(Number));
    const usernames = res.body.result.data.map((u: { username: string }) => u.username);
    expect(usernames).toEqual(expect.arrayContaining(['admin', 'supervisor', 'manager', 'agent', 'agent2']));
    expect(res.body.result.meta).toMatchObject({ current_page: 1, limit: 100, total: res.body.result.data.length });
    expect(JSON.stringify(res.body)).not.toMatch(/password/i);
  });

  it('searches username, e-mail, first and last name, case-insensitively', async () => {
    const token = await t.token('supervisor');
    const byLastName = await t.call('listUsers', { token, query: { search: 'BENALI' } });
    expect(byLastName.body.result.data.map((u: { username: string }) => u.username)).toEqual(['agent']);
    const byFirstName = await t.call('listUsers', { token, query: { search: 'karim' } });
    expect(byFirstName.body.result.data.map((u: { username: string }) => u.username)).toEqual(['agent2']);
    const byEmail = await t.call('listUsers', { token, query: { search: 'manager@transport' } });
    expect(byEmail.body.result.data.map((u: { username: string }) => u.username)).toEqual(['manager']);
  });

  it('narrows by role, organization, country and active state, and sorts by the field asked', async () => {
    const token = await t.token('supervisor');
    const agents = await t.call('listUsers', { token, query: { roleId: 3, limit: 100 } });
    expect(agents.body.result.data.length).toBeGreaterThanOrEqual(2);
    expect(agents.body.result.data.every((u: { role: { id: number } }) => u.role.id === 3)).toBe(true);

    const beta = await t.call('listUsers', { token, query: { organizationId: orgs['TOG-FRN-BETA']! } });
    expect(beta.body.result.data.map((u: { username: string }) => u.username)).toEqual(['agent2']);

    const morocco = await t.call('listUsers', { token, query: { countryId: countries.MA! } });
    expect(morocco.body.result.meta.total).toBe(0);

    const inactive = await createUser(t);
    await t.call('deactivateUser', { token, params: { id: inactive.id } });
    const inactiveList = await t.call('listUsers', { token, query: { isActive: false, limit: 100 } });
    expect(idsOf(inactiveList)).toContain(inactive.id);
    expect(inactiveList.body.result.data.every((u: { isActive: boolean }) => !u.isActive)).toBe(true);

    const sorted = await t.call('listUsers', { token, query: { sortBy: 'username', sortOrder: 'ASC', limit: 100 } });
    const names = sorted.body.result.data.map((u: { username: string }) => u.username);
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('pages the list', async () => {
    const res = await t.call('listUsers', {
      token: await t.token('supervisor'),
      query: { page: 2, limit: 2, sortBy: 'username', sortOrder: 'ASC' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toHaveLength(2);
    expect(res.body.result.meta).toMatchObject({ current_page: 2, limit: 2 });
    expect(res.body.result.meta.total_pages).toBe(Math.ceil(res.body.result.meta.total / 2));
  });

  it('shows a team manager only the accounts of their organization subtree', async () => {
    const res = await t.call('listUsers', { token: await t.token('manager'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    const usernames = res.body.result.data.map((u: { username: string }) => u.username);
    expect(usernames).toEqual(expect.arrayContaining(['manager', 'agent']));
    expect(usernames).not.toContain('agent2');
    expect(usernames).not.toContain('supervisor');
    expect(usernames).not.toContain('admin');
  });

  it('refuses an agent with 403 FORBIDDEN', async () => {
    const res = await t.call('listUsers', { token: await t.token('agent') });
    expect(res.status).toBe(403);
    expect(res.body.errors).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('GET /admin/users/{id} (getUserById)', () => {
  it('returns one account', async () => {
    const id = await userId(t, 'agent2');
    const res = await t.call('getUserById', { token: await t.token('supervisor'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      username: 'agent2',
      firstName: 'Karim',
      lastName: 'El Idrissi',
      organization: { name: 'Team Beta' },
    });
  });

  it('lets a team manager read an account of the team but answers 404 for one outside it', async () => {
    const token = await t.token('manager');
    const inside = await t.call('getUserById', { token, params: { id: await userId(t, 'agent') } });
    expect(inside.status).toBe(200);
    expect(inside.body.result.username).toBe('agent');
    const outside = await t.call('getUserById', { token, params: { id: await userId(t, 'agent2') } });
    expect(outside.status).toBe(404);
    expect(outside.body.errors).toMatchObject({ code: 'RESOURCE_NOT_FOUND', resource: 'user' });
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown id', async () => {
    const res = await t.call('getUserById', { token: await t.token('supervisor'), params: { id: 999999 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 999999 });
  });
});

describe('POST /admin/users (createUser)', () => {
  it('creates an active account and its AGENT actor, stores an argon2id hash and defaults the country to the caller’s', async () => {
    const body = newUserBody({ organizationId: orgs['TOG-FRN-BETA'] });
    const res = await t.call('createUser', { token: await t.token('supervisor'), body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const user = res.body.result;
    expect(user).toMatchObject({
      username: body.username,
      email: body.email,
      firstName: 'Test',
      lastName: body.lastName,
      role: { id: 3, code: 'AGENT', accessLevel: 'agent' },
      country: { id: countries.FR, code: 'FR' },
      organization: { id: orgs['TOG-FRN-BETA'], name: 'Team Beta' },
      isActive: true,
      lastLogin: null,
    });
    const row = await t.db.selectFrom('users').select(['password_hash', 'actor_id']).where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.actor_id).toBe(user.actorId);
    const actor = await t.db.selectFrom('actors').selectAll().where('id', '=', user.actorId).executeTakeFirstOrThrow();
    expect(actor).toMatchObject({
      actor_role: 'AGENT',
      first_name: 'Test',
      last_name: body.lastName,
      email: body.email,
      organization_id: orgs['TOG-FRN-BETA'],
      user_id: user.id,
      is_active: true,
    });
    // The new account can log in with its password.
    expect((await login(t, body.username)).access_token).toEqual(expect.any(String));
  });

  it('gives an administrator-level account an ADMIN actor and the country asked', async () => {
    const user = await createUser(t, { roleId: 2, countryId: countries.SN });
    expect(user).toMatchObject({ role: { code: 'ADMIN' }, country: { code: 'SN' } });
    const actor = await t.db.selectFrom('actors').select('actor_role').where('id', '=', user.actorId!).executeTakeFirstOrThrow();
    expect(actor.actor_role).toBe('ADMIN');
  });

  it('refuses a confirmation that differs from the password with 400 naming confirmPassword', async () => {
    const res = await t.call('createUser', { token: await t.token('admin'), body: newUserBody({ confirmPassword: 'Other#2026' }) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/confirmPassword must be equal to password']);
  });

  it('refuses a role above the caller’s level with 403 ROLE_NOT_ASSIGNABLE', async () => {
    const res = await t.call('createUser', { token: await t.token('supervisor'), body: newUserBody({ roleId: 2 }) });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'ROLE_NOT_ASSIGNABLE', roleId: 2 });
    const superAdmin = await t.call('createUser', { token: await t.token('admin'), body: newUserBody({ roleId: 1 }) });
    expect(superAdmin.status).toBe(403);
    expect(superAdmin.body.errors).toEqual({ code: 'ROLE_NOT_ASSIGNABLE', roleId: 1 });
  });

  it('answers 404 for an unknown or inactive role, an unknown organization, an unknown or inactive country', async () => {
    const token = await t.token('admin');
    const inactiveRole = await t.db
      .insertInto('roles')
      .values({ code: 'RETIRED_DESK', name: 'Retired desk', description: null, access_level: 'agent', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    const inactiveCountry = await t.db
      .insertInto('countries')
      .values({ code: 'ZZ', name: 'Closed land', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();

    for (const [body, resource, id] of [
      [{ roleId: 4242 }, 'role', 4242],
      [{ roleId: inactiveRole.id }, 'role', inactiveRole.id],
      [{ organizationId: 4242 }, 'organization', 4242],
      [{ countryId: 4242 }, 'country', 4242],
      [{ countryId: inactiveCountry.id }, 'country', inactiveCountry.id],
    ] as const) {
      const res = await t.call('createUser', { token, body: newUserBody(body) });
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource, id });
    }
  });

  it('refuses a username or e-mail already used, in any case, with 409 ALREADY_EXISTS naming the field', async () => {
    const token = await t.token('admin');
    const sameUsername = await t.call('createUser', { token, body: newUserBody({ username: 'AGENT' }) });
    expect(sameUsername.status).toBe(409);
    expect(sameUsername.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'user', field: 'username', value: 'AGENT' });
    const sameEmail = await t.call('createUser', { token, body: newUserBody({ email: 'Agent@Transport-Ops.example' }) });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body.errors).toEqual({
      code: 'ALREADY_EXISTS',
      resource: 'user',
      field: 'email',
      value: 'Agent@Transport-Ops.example',
    });
  });

  it('refuses an e-mail used by another actor of the same family with 409 ALREADY_EXISTS on the actor', async () => {
    await t.db
      .insertInto('actors')
      .values({ actor_role: 'AGENT', first_name: 'Lone', last_name: 'Agent', email: 'lone.agent@example.test' })
      .execute();
    const res = await t.call('createUser', { token: await t.token('admin'), body: newUserBody({ email: 'LONE.agent@example.test' }) });
    expect(res.status).toBe(409);
    expect(res.body.errors).toMatchObject({ code: 'ALREADY_EXISTS', resource: 'actor', field: 'email' });
    // Another family may use it: an administrator account gets an ADMIN actor.
    const admin = await t.call('createUser', {
      token: await t.token('admin'),
      body: newUserBody({ email: 'lone.agent@example.test', roleId: 2 }),
    });
    expect(admin.status).toBe(201);
  });

  it('accepts exactly one of two parallel creations with the same username (201 and 409) and stores one account', async () => {
    const token = await t.token('admin');
    const first = newUserBody();
    const second = newUserBody({ username: first.username });
    const results = await Promise.all([t.call('createUser', { token, body: first }), t.call('createUser', { token, body: second })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const conflict = results.find((r) => r.status === 409)!;
    expect(conflict.body.errors).toMatchObject({ code: 'ALREADY_EXISTS', resource: 'user', field: 'username' });
    const rows = await t.db.selectFrom('users').select('id').where('username', '=', first.username).execute();
    expect(rows).toHaveLength(1);
    // The loser's actor was rolled back with its account.
    const actors = await t.db.selectFrom('actors').select('id').where('email', 'in', [first.email, second.email]).execute();
    expect(actors).toHaveLength(1);
  });

  it('refuses a team manager with 403 FORBIDDEN', async () => {
    const res = await t.call('createUser', { token: await t.token('manager'), body: newUserBody() });
    expect(res.status).toBe(403);
    expect(res.body.errors).toMatchObject({ code: 'FORBIDDEN', requiredRoles: ['supervisor', 'admin', 'super_admin'] });
  });
});

describe('PATCH /admin/users/{id} (updateUser)', () => {
  it('writes names and e-mail to the account and its actor, and keeps the sessions open', async () => {
    const user = await createUser(t);
    const { access_token } = await login(t, user.username);
    const email = `renamed.${user.username}@example.test`;
    const res = await t.call('updateUser', {
      token: await t.token('supervisor'),
      params: { id: user.id },
      body: { firstName: 'Awa', lastName: 'Traoré', email, countryId: countries.CI },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({ id: user.id, firstName: 'Awa', lastName: 'Traoré', email, country: { code: 'CI' } });
    const actor = await t.db.selectFrom('actors').selectAll().where('id', '=', user.actorId!).executeTakeFirstOrThrow();
    expect(actor).toMatchObject({ first_name: 'Awa', last_name: 'Traoré', email });
    expect(await profileStatus(t, access_token)).toBe(200);
  });

  it('ends the account’s sessions when its role changes, and the next login carries the new level', async () => {
    const user = await createUser(t);
    const { access_token, refresh_token } = await login(t, user.username);
    expect((await t.call('listUsers', { token: access_token })).status).toBe(403);
    const res = await t.call('updateUser', { token: await t.token('supervisor'), params: { id: user.id }, body: { roleId: 4 } });
    expect(res.status).toBe(200);
    expect(res.body.result.role).toMatchObject({ id: 4, accessLevel: 'team_manager' });
    expect(await profileStatus(t, access_token)).toBe(401);
    expect((await t.call('refreshToken', { body: { refresh_token } })).status).toBe(401);
    const fresh = await login(t, user.username);
    expect((await t.call('listUsers', { token: fresh.access_token })).status).toBe(200);
  });

  it('ends the account’s sessions when its organization changes, and clears it with null', async () => {
    const user = await createUser(t, { organizationId: orgs['TOG-FRN-ALPHA'] });
    const first = await login(t, user.username);
    const moved = await t.call('updateUser', {
      token: await t.token('supervisor'),
      params: { id: user.id },
      body: { organizationId: orgs['TOG-FRN-BETA']! },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.result.organization).toEqual({ id: orgs['TOG-FRN-BETA'], name: 'Team Beta' });
    expect(await profileStatus(t, first.access_token)).toBe(401);
    const actor = await t.db.selectFrom('actors').select('organization_id').where('id', '=', user.actorId!).executeTakeFirstOrThrow();
    expect(actor.organization_id).toBe(orgs['TOG-FRN-BETA']);

    const second = await login(t, user.username);
    const cleared = await t.call('updateUser', {
      token: await t.token('supervisor'),
      params: { id: user.id },
      body: { organizationId: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.result.organization).toBeNull();
    expect(await profileStatus(t, second.access_token)).toBe(401);
  });

  it('moves the actor to the ADMIN family when an administrator gives an admin role', async () => {
    const user = await createUser(t);
    const res = await t.call('updateUser', { token: await t.token('admin'), params: { id: user.id }, body: { roleId: 2 } });
    expect(res.status).toBe(200);
    const actor = await t.db.selectFrom('actors').select('actor_role').where('id', '=', user.actorId!).executeTakeFirstOrThrow();
    expect(actor.actor_role).toBe('ADMIN');
  });

  it('refuses an account above the caller’s level with 403 FORBIDDEN listing the levels that may', async () => {
    const res = await t.call('updateUser', {
      token: await t.token('supervisor'),
      params: { id: await userId(t, 'admin') },
      body: { firstName: 'X' },
    });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
  });

  it('refuses a role above the caller’s level with 403 ROLE_NOT_ASSIGNABLE', async () => {
    const user = await createUser(t);
    const res = await t.call('updateUser', { token: await t.token('supervisor'), params: { id: user.id }, body: { roleId: 2 } });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'ROLE_NOT_ASSIGNABLE', roleId: 2 });
  });

  it('refuses an e-mail used by another account with 409 ALREADY_EXISTS', async () => {
    const user = await createUser(t);
    const res = await t.call('updateUser', {
      token: await t.token('supervisor'),
      params: { id: user.id },
      body: { email: 'AGENT2@transport-ops.example' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors).toMatchObject({ code: 'ALREADY_EXISTS', resource: 'user', field: 'email' });
  });

  it('answers 404 for an unknown account, role, organization or country', async () => {
    const token = await t.token('supervisor');
    const user = await createUser(t);
    const unknownUser = await t.call('updateUser', { token, params: { id: 999999 }, body: { firstName: 'X' } });
    expect(unknownUser.status).toBe(404);
    expect(unknownUser.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 999999 });
    for (const [body, resource] of [
      [{ roleId: 4242 }, 'role'],
      [{ organizationId: 4242 }, 'organization'],
      [{ countryId: 4242 }, 'country'],
    ] as const) {
      const res = await t.call('updateUser', { token, params: { id: user.id }, body });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource, id: 4242 });
    }
  });

  it('refuses names on an account without an actor with 400', async () => {
    const user = await createUser(t);
    await t.db.updateTable('users').set({ actor_id: null }).where('id', '=', user.id).execute();
    const res = await t.call('updateUser', { token: await t.token('supervisor'), params: { id: user.id }, body: { firstName: 'Nobody' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/firstName cannot be set on an account without an actor']);
    const email = await t.call('updateUser', {
      token: await t.token('supervisor'),
      params: { id: user.id },
      body: { email: `solo.${user.email}` },
    });
    expect(email.status).toBe(200);
    expect(email.body.result).toMatchObject({ firstName: null, lastName: null, actorId: null, email: `solo.${user.email}` });
  });

  it('still lets the user log in with the same password after an update', async () => {
    const user = await createUser(t);
    const updated = await t.call('updateUser', { token: await t.token('supervisor'), params: { id: user.id }, body: { lastName: 'Kept' } });
    expect(updated.body.result.lastName).toBe('Kept');
    const res = await t.call('login', { body: { username: user.username, password: PASSWORD } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.user).toMatchObject({ id: user.id, username: user.username });
    expect(res.body.result.access_token).toEqual(expect.any(String));
  });
});
