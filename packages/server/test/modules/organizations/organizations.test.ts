import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid, expectNotFound, expectRoleRefused } from '../../support/expect.js';
import { actorIdOf, createAccount } from '../actors/fixtures.js';

const t = useTestApp();
type Seeded = 'TOG' | 'TOG-FRN' | 'TOG-FRN-ALPHA' | 'TOG-FRN-BETA';
const org = {} as Record<Seeded, number>;
let fr: number;

beforeAll(async () => {
  const rows = await t.db.selectFrom('organizations').select(['id', 'code']).execute();
  for (const r of rows) org[r.code as Seeded] = r.id;
  fr = (await t.db.selectFrom('countries').select('id').where('code', '=', 'FR').executeTakeFirstOrThrow()).id;
});

let counter = 0;
async function newOrganization(body: Record<string, unknown> = {}) {
  counter += 1;
  const res = await t.call('createOrganization', {
    token: await t.token('admin'),
    body: {
      name: `Depot ${counter}`,
      code: `DEPOT-${counter}-${Math.random().toString(36).slice(2, 6).toUpperCase()}`,
      type: 'TEAM',
      ...body,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result;
}

const codes = (res: { body: { result: { data: { code: string }[] } } }) => res.body.result.data.map((o) => o.code);

describe('GET /admin/organizations (listOrganizations)', () => {
  it('lists the tree depth first with paths and counters', async () => {
    const res = await t.call('listOrganizations', { token: await t.token('supervisor'), query: { search: 'TOG', limit: 100 } });
    expect(res.status).toBe(200);
    const seeded = ['TOG', 'TOG-FRN', 'TOG-FRN-ALPHA', 'TOG-FRN-BETA'];
    expect(codes(res).filter((c) => seeded.includes(c))).toEqual(seeded);
    const byCode = (code: string) => res.body.result.data.find((o: { code: string }) => o.code === code);
    const alpha = byCode('TOG-FRN-ALPHA');
    expect(alpha).toMatchObject({
      name: 'Team Alpha',
      type: 'TEAM',
      parentId: org['TOG-FRN'],
      parent: { id: org['TOG-FRN'], name: 'France North Region' },
      manager: { username: 'manager' },
      country: { id: fr, name: 'France' },
      isActive: true,
      membersCount: 2,
      childrenCount: 0,
      path: [
        { id: org.TOG, name: 'Transport Ops Group' },
        { id: org['TOG-FRN'], name: 'France North Region' },
      ],
    });
    expect(byCode('TOG')).toMatchObject({ parentId: null, parent: null, path: [] });
    expect(byCode('TOG-FRN')!.path).toEqual([{ id: org.TOG, name: 'Transport Ops Group' }]);
  });

  it("puts a new child right after its parent's subtree position (depth first)", async () => {
    const child = await newOrganization({ name: 'Alpha Night Shift', parentId: org['TOG-FRN-ALPHA'] });
    const res = await t.call('listOrganizations', { token: await t.token('admin'), query: { limit: 100 } });
    const list = codes(res);
    expect(list.indexOf(child.code)).toBe(list.indexOf('TOG-FRN-ALPHA') + 1);
    expect(list.indexOf('TOG-FRN-BETA')).toBeGreaterThan(list.indexOf(child.code));
  });

  it('filters by parent, type and state', async () => {
    const admin = await t.token('admin');
    const children = await t.call('listOrganizations', { token: admin, query: { parentId: org['TOG-FRN'], type: 'TEAM' } });
    expect(codes(children)).toEqual(expect.arrayContaining(['TOG-FRN-ALPHA', 'TOG-FRN-BETA']));
    expect(children.body.result.data.every((o) => o.parentId === org['TOG-FRN'])).toBe(true);
    const regions = await t.call('listOrganizations', { token: admin, query: { type: 'REGION', search: 'france' } });
    expect(codes(regions)).toEqual(['TOG-FRN']);
    const closed = await newOrganization();
    await t.call('updateOrganization', { token: admin, params: { id: closed.id }, body: { isActive: false } });
    const inactive = await t.call('listOrganizations', { token: admin, query: { isActive: false } });
    expect(codes(inactive)).toContain(closed.code);
    expect(inactive.body.result.data.every((o: { isActive: boolean }) => !o.isActive)).toBe(true);
  });

  it('shows a team manager only their organization and its descendants', async () => {
    const res = await t.call('listOrganizations', { token: await t.token('manager'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    const list = codes(res);
    expect(list).toContain('TOG-FRN-ALPHA');
    expect(list).not.toContain('TOG-FRN-BETA');
    expect(list).not.toContain('TOG-FRN');
    expect(list).not.toContain('TOG');
  });

  it('refuses an agent with 403 FORBIDDEN', async () => {
    const res = await t.call('listOrganizations', { token: await t.token('agent') });
    expectRoleRefused(res, 'listOrganizations');
  });
});

describe('POST /admin/organizations (createOrganization)', () => {
  it('creates an active organization under a parent with a manager and a country', async () => {
    const managerId = (await t.db.selectFrom('users').select('id').where('username', '=', 'manager').executeTakeFirstOrThrow()).id;
    const res = await t.call('createOrganization', {
      token: await t.token('admin'),
      body: { name: 'Lille Hub', code: 'TOG-FRN-LIL', type: 'TEAM', parentId: org['TOG-FRN'], managerUserId: managerId, countryId: fr },
    });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({
      name: 'Lille Hub',
      code: 'TOG-FRN-LIL',
      type: 'TEAM',
      parentId: org['TOG-FRN'],
      parent: { id: org['TOG-FRN'], name: 'France North Region' },
      manager: { id: managerId, username: 'manager' },
      country: { id: fr, name: 'France' },
      isActive: true,
      membersCount: 0,
      childrenCount: 0,
      path: [
        { id: org.TOG, name: 'Transport Ops Group' },
        { id: org['TOG-FRN'], name: 'France North Region' },
      ],
    });
  });

  it('creates a root when no parent is given', async () => {
    const created = await newOrganization({ type: 'COMPANY' });
    expect(created).toMatchObject({ parentId: null, parent: null, manager: null, country: null, path: [] });
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown parent, manager or country', async () => {
    const admin = await t.token('admin');
    const base = { name: 'X', code: 'NOPE', type: 'TEAM' };
    const parent = await t.call('createOrganization', { token: admin, payload: { ...base, parentId: 999 } });
    expect(parent.status).toBe(404);
    expect(parent.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'organization', id: 999 });
    const manager = await t.call('createOrganization', { token: admin, payload: { ...base, managerUserId: 999 } });
    expect(manager.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 999 });
    const country = await t.call('createOrganization', { token: admin, payload: { ...base, countryId: 999 } });
    expect(country.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'country', id: 999 });
  });

  it('refuses an inactive manager account with 400', async () => {
    const account = await createAccount(t, { level: 'team_manager', actor: 'AGENT' });
    await t.call('deactivateAgent', { token: await t.token('supervisor'), params: { id: account.actorId! } });
    const res = await t.call('createOrganization', {
      token: await t.token('admin'),
      body: { name: 'X', code: 'INACTIVE-MGR', type: 'TEAM', managerUserId: account.userId },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/managerUserId must reference an active account']);
  });

  it('refuses a used code with 409 ALREADY_EXISTS', async () => {
    const res = await t.call('createOrganization', {
      token: await t.token('admin'),
      body: { name: 'Other', code: 'TOG-FRN', type: 'REGION' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'organization', field: 'code', value: 'TOG-FRN' });
  });

  it('lets exactly one of parallel creations with the same code win', async () => {
    const admin = await t.token('admin');
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        t.call('createOrganization', { token: admin, body: { name: `Race ${i}`, code: 'RACE-CODE', type: 'TEAM' } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await t.db.selectFrom('organizations').select('id').where('code', '=', 'RACE-CODE').execute()).toHaveLength(1);
  });

  it('refuses a lower-case code with 400 and a supervisor with 403', async () => {
    expectInvalid(
      await t.call('createOrganization', { token: await t.token('admin'), body: { name: 'X', code: 'lower', type: 'TEAM' } }),
      /^body\/code must match pattern /,
    );
    expectRoleRefused(
      await t.call('createOrganization', { token: await t.token('supervisor'), body: { name: 'X', code: 'SUP', type: 'TEAM' } }),
      'createOrganization',
    );
    const stored = await t.db.selectFrom('organizations').select('id').where('code', 'in', ['lower', 'SUP']).execute();
    expect(stored).toEqual([]);
  });
});

describe('GET /admin/organizations/{id} (getOrganizationById)', () => {
  it('returns the organization with its direct children by name', async () => {
    const res = await t.call('getOrganizationById', { token: await t.token('supervisor'), params: { id: org['TOG-FRN'] } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id: org['TOG-FRN'],
      code: 'TOG-FRN',
      manager: { username: 'supervisor' },
      path: [{ id: org.TOG, name: 'Transport Ops Group' }],
    });
    const names = res.body.result.children.map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(['Team Alpha', 'Team Beta']));
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(res.body.result.children.length).toBe(res.body.result.childrenCount);
  });

  it('answers 404 to a team manager for an organization outside their subtree', async () => {
    const manager = await t.token('manager');
    const own = await t.call('getOrganizationById', { token: manager, params: { id: org['TOG-FRN-ALPHA'] } });
    expect(own.status).toBe(200);
    for (const code of ['TOG-FRN-BETA', 'TOG-FRN'] as const) {
      const other = await t.call('getOrganizationById', { token: manager, params: { id: org[code] } });
      expect(other.status).toBe(404);
      expect(other.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'organization', id: org[code] });
    }
  });

  it('answers 404 for an unknown organization', async () => {
    expectNotFound(await t.call('getOrganizationById', { token: await t.token('admin'), params: { id: 4242 } }), 'organization', 4242);
  });
});

describe('PATCH /admin/organizations/{id} (updateOrganization)', () => {
  it('renames, clears the country and moves an organization with its subtree', async () => {
    const admin = await t.token('admin');
    const region = await newOrganization({ type: 'REGION', parentId: org.TOG, countryId: fr });
    const team = await newOrganization({ parentId: region.id });
    const target = await newOrganization({ type: 'REGION', name: 'South Region', parentId: org.TOG });

    const moved = await t.call('updateOrganization', {
      token: admin,
      params: { id: region.id },
      body: { parentId: target.id, name: 'West Region', countryId: null },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.result).toMatchObject({
      name: 'West Region',
      parentId: target.id,
      country: null,
      path: [
        { id: org.TOG, name: 'Transport Ops Group' },
        { id: target.id, name: 'South Region' },
      ],
      children: [{ id: team.id, name: team.name, type: 'TEAM' }],
    });
    const child = await t.call('getOrganizationById', { token: admin, params: { id: team.id } });
    expect(child.body.result.path.map((p: { id: number }) => p.id)).toEqual([org.TOG, target.id, region.id]);

    const root = await t.call('updateOrganization', { token: admin, params: { id: region.id }, body: { parentId: null } });
    expect(root.body.result).toMatchObject({ parentId: null, parent: null, path: [] });
  });

  it('refuses a move under itself or a descendant with 409 ORGANIZATION_CYCLE', async () => {
    const admin = await t.token('admin');
    const under = await t.call('updateOrganization', {
      token: admin,
      params: { id: org['TOG-FRN'] },
      body: { parentId: org['TOG-FRN-ALPHA'] },
    });
    expect(under.status).toBe(409);
    expect(under.body.errors).toEqual({ code: 'ORGANIZATION_CYCLE', organizationId: org['TOG-FRN'], parentId: org['TOG-FRN-ALPHA'] });
    const self = await t.call('updateOrganization', { token: admin, params: { id: org['TOG-FRN'] }, body: { parentId: org['TOG-FRN'] } });
    expect(self.status).toBe(409);
    expect(self.body.errors.code).toBe('ORGANIZATION_CYCLE');
    const row = await t.db.selectFrom('organizations').select('parent_id').where('id', '=', org['TOG-FRN']).executeTakeFirstOrThrow();
    expect(row.parent_id).toBe(org.TOG);
  });

  it('lets only one of two crossing moves win, so no cycle is ever stored', async () => {
    const admin = await t.token('admin');
    const a = await newOrganization();
    const b = await newOrganization();
    const [ab, ba] = await Promise.all([
      t.call('updateOrganization', { token: admin, params: { id: a.id }, body: { parentId: b.id } }),
      t.call('updateOrganization', { token: admin, params: { id: b.id }, body: { parentId: a.id } }),
    ]);
    expect([ab.status, ba.status].sort()).toEqual([200, 409]);
    const rows = await t.db.selectFrom('organizations').select(['id', 'parent_id']).where('id', 'in', [a.id, b.id]).execute();
    expect(rows.filter((r) => r.parent_id !== null)).toHaveLength(1);
  });

  it('answers 404 for an unknown organization or parent', async () => {
    const admin = await t.token('admin');
    const unknown = await t.call('updateOrganization', { token: admin, params: { id: 4242 }, body: { name: 'X' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'organization', id: 4242 });
    const parent = await t.call('updateOrganization', { token: admin, params: { id: org['TOG-FRN-BETA'] }, body: { parentId: 99 } });
    expect(parent.status).toBe(404);
    expect(parent.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'organization', id: 99 });
  });

  it('refuses a used code with 409 ALREADY_EXISTS and an empty body with 400', async () => {
    const admin = await t.token('admin');
    const created = await newOrganization();
    const dup = await t.call('updateOrganization', { token: admin, params: { id: created.id }, body: { code: 'TOG' } });
    expect(dup.status).toBe(409);
    expect(dup.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'organization', field: 'code', value: 'TOG' });
    expect((await t.call('updateOrganization', { token: admin, params: { id: created.id }, body: {} })).status).toBe(400);
  });

  it('refuses a supervisor with 403 FORBIDDEN', async () => {
    const before = await t.call('getOrganizationById', { token: await t.token('admin'), params: { id: org.TOG } });
    const res = await t.call('updateOrganization', { token: await t.token('supervisor'), params: { id: org.TOG }, body: { name: 'X' } });
    expectRoleRefused(res, 'updateOrganization');
    const after = await t.call('getOrganizationById', { token: await t.token('admin'), params: { id: org.TOG } });
    expect(after.body.result.name).toBe(before.body.result.name);
  });
});

describe('DELETE /admin/organizations/{id} (deleteOrganization)', () => {
  it('deletes an organization without children, members or actors', async () => {
    const created = await newOrganization();
    const res = await t.call('deleteOrganization', { token: await t.token('admin'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect((await t.call('getOrganizationById', { token: await t.token('admin'), params: { id: created.id } })).status).toBe(404);
  });

  it('refuses one with children, members or actors with 409 RESOURCE_IN_USE', async () => {
    const admin = await t.token('admin');
    // TOG-FRN: two child teams, the supervisor's account and the supervisor's actor.
    const region = await t.call('deleteOrganization', { token: admin, params: { id: org['TOG-FRN'] } });
    expect(region.status).toBe(409);
    expect(region.body.errors).toMatchObject({ code: 'RESOURCE_IN_USE', resource: 'organization', id: org['TOG-FRN'] });
    expect(region.body.errors.usageCount).toBeGreaterThanOrEqual(4);

    const holder = await newOrganization();
    await t.call('updateAgent', {
      token: await t.token('supervisor'),
      params: { id: await actorIdOf(t, 'agent2') },
      body: { organizationId: holder.id },
    });
    const withActor = await t.call('deleteOrganization', { token: admin, params: { id: holder.id } });
    expect(withActor.status).toBe(409);
    expect(withActor.body.errors.usageCount).toBe(1);
  });

  it('answers 404 for an unknown organization and refuses a supervisor with 403', async () => {
    expectNotFound(await t.call('deleteOrganization', { token: await t.token('admin'), params: { id: 4242 } }), 'organization', 4242);
    expectRoleRefused(
      await t.call('deleteOrganization', { token: await t.token('supervisor'), params: { id: org.TOG } }),
      'deleteOrganization',
    );
    const kept = await t.call('getOrganizationById', { token: await t.token('admin'), params: { id: org.TOG } });
    expect(kept.body.result.id).toBe(org.TOG);
  });
});
