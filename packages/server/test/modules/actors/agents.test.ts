import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { expectInvalid, expectNotFound, expectRoleRefused } from '../../support/expect.js';
import { actorIdOf, createAccount, login, organizationId, uniqueEmail } from './fixtures.js';

const t = useTestApp();
let alpha: number;
let beta: number;
type Demo = 'admin' | 'supervisor' | 'manager' | 'agent' | 'agent2';
const ids = {} as Record<Demo, number>;

beforeAll(async () => {
  alpha = await organizationId(t, 'TOG-FRN-ALPHA');
  beta = await organizationId(t, 'TOG-FRN-BETA');
  for (const name of ['admin', 'supervisor', 'manager', 'agent', 'agent2'] as const) ids[name] = await actorIdOf(t, name);
});

async function newAgent(body: Record<string, unknown> = {}) {
  const res = await t.call('createAgent', {
    token: await t.token('supervisor'),
    body: { firstName: 'Kofi', lastName: 'Kouassi', email: uniqueEmail('agent'), ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result;
}

describe('GET /admin/actors/agents (listAgents)', () => {
  it('shows a team manager the agents of their organization subtree only', async () => {
    const res = await t.call('listAgents', { token: await t.token('manager'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    const seen = idsOf(res);
    expect(seen).toContain(ids.agent);
    expect(seen).toContain(ids.manager);
    expect(seen).not.toContain(ids.agent2);
    expect(seen).not.toContain(ids.supervisor);
    expect(res.body.result.data.every((a) => a.organization?.id === alpha)).toBe(true);
  });

  it('shows a supervisor every agent, never an administrator', async () => {
    const res = await t.call('listAgents', { token: await t.token('supervisor'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    const seen = idsOf(res);
    expect(seen).toEqual(expect.arrayContaining([ids.agent, ids.agent2, ids.manager, ids.supervisor]));
    expect(seen).not.toContain(ids.admin);
    expect(res.body.result.meta.total).toBe(seen.length);
  });

  it('filters by organization, state and search', async () => {
    const supervisor = await t.token('supervisor');
    const inBeta = await t.call('listAgents', { token: supervisor, query: { organizationId: beta } });
    expect(idsOf(inBeta)).toContain(ids.agent2);
    expect(inBeta.body.result.data.every((a) => a.organization?.id === beta)).toBe(true);
    const found = await t.call('listAgents', { token: supervisor, query: { search: 'BENALI' } });
    expect(found.body.result.data).toEqual([
      expect.objectContaining({ id: ids.agent, firstName: 'Sarah', user: expect.objectContaining({ username: 'agent' }) }),
    ]);
    const byPhone = await t.call('listAgents', { token: supervisor, query: { search: '10 00 00 05' } });
    expect(idsOf(byPhone)).toEqual([ids.agent2]);
    const inactive = await newAgent();
    await t.call('deactivateAgent', { token: supervisor, params: { id: inactive.id } });
    const off = await t.call('listAgents', { token: supervisor, query: { isActive: false } });
    expect(idsOf(off)).toContain(inactive.id);
    expect(off.body.result.data.every((a: { isActive: boolean }) => !a.isActive)).toBe(true);
  });

  it('treats LIKE wildcards in the search literally', async () => {
    const res = await t.call('listAgents', { token: await t.token('supervisor'), query: { search: '%' } });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual([]);
  });

  it('refuses an agent with 403 FORBIDDEN', async () => {
    const res = await t.call('listAgents', { token: await t.token('agent') });
    expect(res.status).toBe(403);
    expect(res.body.errors.code).toBe('FORBIDDEN');
  });
});

describe('GET /admin/actors/agents/{id} (getAgentById)', () => {
  it('shows the manager an agent of their team, and 404 for one of another team', async () => {
    const manager = await t.token('manager');
    const own = await t.call('getAgentById', { token: manager, params: { id: ids.agent } });
    expect(own.status).toBe(200);
    expect(own.body.result).toMatchObject({
      id: ids.agent,
      actorRole: 'AGENT',
      lastName: 'Benali',
      organization: { id: alpha, name: 'Team Alpha' },
    });
    const other = await t.call('getAgentById', { token: manager, params: { id: ids.agent2 } });
    expect(other.status).toBe(404);
    expect(other.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'actor', id: ids.agent2 });
  });

  it('shows a supervisor any agent', async () => {
    const res = await t.call('getAgentById', { token: await t.token('supervisor'), params: { id: ids.agent2 } });
    expect(res.status).toBe(200);
    expect(res.body.result.organization).toEqual({ id: beta, name: 'Team Beta' });
  });

  it('answers 404 for an administrator id', async () => {
    const res = await t.call('getAgentById', { token: await t.token('admin'), params: { id: ids.admin } });
    expectNotFound(res, 'actor', ids.admin);
  });
});

describe('POST /admin/actors/agents (createAgent)', () => {
  it('creates an agent linked to an account of agent level', async () => {
    const account = await createAccount(t, { level: 'team_manager', organizationCode: 'TOG-FRN-BETA' });
    const email = uniqueEmail('kofi');
    const res = await t.call('createAgent', {
      token: await t.token('supervisor'),
      body: { firstName: 'Kofi', lastName: 'Kouassi', email, organizationId: beta, userId: account.userId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toMatchObject({
      actorRole: 'AGENT',
      email,
      phone: null,
      address: null,
      organization: { id: beta, name: 'Team Beta' },
      user: { id: account.userId, username: account.username },
      isActive: true,
    });
  });

  it('refuses an account of admin level with 400', async () => {
    const account = await createAccount(t, { level: 'admin' });
    const res = await t.call('createAgent', {
      token: await t.token('admin'),
      body: { firstName: 'A', lastName: 'B', userId: account.userId },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/userId must reference an account of level agent, team_manager or supervisor']);
  });

  it('refuses an e-mail used by another agent with 409 ALREADY_EXISTS', async () => {
    const res = await t.call('createAgent', {
      token: await t.token('supervisor'),
      body: { firstName: 'A', lastName: 'B', email: 'Agent2@Transport-Ops.example' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors).toMatchObject({
      code: 'ALREADY_EXISTS',
      resource: 'actor',
      field: 'email',
      value: 'Agent2@Transport-Ops.example',
    });
  });

  it('answers 404 for an unknown organization', async () => {
    const res = await t.call('createAgent', {
      token: await t.token('supervisor'),
      body: { firstName: 'A', lastName: 'B', organizationId: 4242 },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors.resource).toBe('organization');
  });

  it('refuses a team manager with 403 FORBIDDEN', async () => {
    const before = await t.call('listAgents', { token: await t.token('supervisor'), query: { limit: 1 } });
    const res = await t.call('createAgent', { token: await t.token('manager'), body: { firstName: 'A', lastName: 'B' } });
    expectRoleRefused(res, 'createAgent');
    const after = await t.call('listAgents', { token: await t.token('supervisor'), query: { limit: 1 } });
    expect(after.body.result.meta.total).toBe(before.body.result.meta.total);
  });
});

describe('PATCH /admin/actors/agents/{id} (updateAgent)', () => {
  it('moves the agent to another organization and changes its contact', async () => {
    const created = await newAgent({ organizationId: alpha, address: 'Rue de Lille' });
    const res = await t.call('updateAgent', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: { organizationId: beta, phone: '+33611223344', address: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      organization: { id: beta, name: 'Team Beta' },
      phone: '+33611223344',
      address: null,
      firstName: 'Kofi',
    });
    const manager = await t.call('getAgentById', { token: await t.token('manager'), params: { id: created.id } });
    expect(manager.status).toBe(404);
  });

  it('refuses the e-mail of another agent with 409 ALREADY_EXISTS', async () => {
    const created = await newAgent();
    const res = await t.call('updateAgent', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: { email: 'agent@transport-ops.example' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors.code).toBe('ALREADY_EXISTS');
  });

  it('answers 404 for an unknown agent and for a customer id', async () => {
    const supervisor = await t.token('supervisor');
    const unknown = await t.call('updateAgent', { token: supervisor, params: { id: 99999 }, body: { firstName: 'X' } });
    expectNotFound(unknown, 'actor', 99999);
    const customer = await t.db.selectFrom('actors').select('id').where('actor_role', '=', 'CUSTOMER').executeTakeFirstOrThrow();
    const other = await t.call('updateAgent', { token: supervisor, params: { id: customer.id }, body: { firstName: 'X' } });
    expectNotFound(other, 'actor', customer.id);
    const unchanged = await t.call('getCustomerById', { token: await t.token('admin'), params: { id: customer.id } });
    expect(unchanged.body.result.firstName).not.toBe('X');
  });

  it('refuses a team manager with 403 FORBIDDEN', async () => {
    const res = await t.call('updateAgent', { token: await t.token('manager'), params: { id: ids.agent }, body: { firstName: 'X' } });
    expectRoleRefused(res, 'updateAgent');
    const agent = await t.call('getAgentById', { token: await t.token('supervisor'), params: { id: ids.agent } });
    expect(agent.body.result.firstName).toBe('Sarah');
  });
});

describe('DELETE /admin/actors/agents/{id} (deleteAgent)', () => {
  it('deletes an agent without account', async () => {
    const created = await newAgent();
    const res = await t.call('deleteAgent', { token: await t.token('admin'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect(await t.db.selectFrom('actors').select('id').where('id', '=', created.id).executeTakeFirst()).toBeUndefined();
  });

  it('refuses an agent linked to an account with 409 RESOURCE_IN_USE', async () => {
    const res = await t.call('deleteAgent', { token: await t.token('admin'), params: { id: ids.agent } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'actor', id: ids.agent, usageCount: 1 });
  });

  it('answers 404 for an unknown agent', async () => {
    const res = await t.call('deleteAgent', { token: await t.token('admin'), params: { id: 99999 } });
    expectNotFound(res, 'actor', 99999);
  });

  it('refuses a supervisor with 403 FORBIDDEN', async () => {
    const created = await newAgent();
    const res = await t.call('deleteAgent', { token: await t.token('supervisor'), params: { id: created.id } });
    expectRoleRefused(res, 'deleteAgent');
    const kept = await t.call('getAgentById', { token: await t.token('supervisor'), params: { id: created.id } });
    expect(kept.body.result).toMatchObject({ id: created.id, lastName: created.lastName });
  });
});

describe('POST /admin/actors/agents/{id}/activate and /deactivate', () => {
  it("deactivates the agent and its account: the account's token gets 401 right after, refresh and login fail", async () => {
    const account = await createAccount(t, { level: 'agent', organizationCode: 'TOG-FRN-ALPHA', actor: 'AGENT' });
    const loginRes = await t.call('login', { body: { username: account.username, password: 'demo1234' } });
    const token = loginRes.body.result.access_token as string;
    expect((await t.call('getProfile', { token })).status).toBe(200);

    const supervisor = await t.token('supervisor');
    const off = await t.call('deactivateAgent', { token: supervisor, params: { id: account.actorId! } });
    expect(off.status).toBe(200);
    expect(off.body.result).toMatchObject({ id: account.actorId, isActive: false });

    expect((await t.call('getProfile', { token })).status).toBe(401);
    const refreshed = await t.call('refreshToken', { body: { refresh_token: loginRes.body.result.refresh_token } });
    expect(refreshed.status).toBe(401);
    const relogin = await t.call('login', { body: { username: account.username, password: 'demo1234' } });
    expect(relogin.status).toBe(401);

    const on = await t.call('activateAgent', { token: supervisor, params: { id: account.actorId! } });
    expect(on.status).toBe(200);
    expect(on.body.result.isActive).toBe(true);
    const user = await t.db.selectFrom('users').select('is_active').where('id', '=', account.userId).executeTakeFirstOrThrow();
    expect(user.is_active).toBe(true);
    expect((await t.call('getProfile', { token: await login(t, account.username) })).status).toBe(200);
  });

  it('refuses a supervisor deactivating their own actor with 409 SELF_ACTION_FORBIDDEN', async () => {
    const res = await t.call('deactivateAgent', { token: await t.token('supervisor'), params: { id: ids.supervisor } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'SELF_ACTION_FORBIDDEN', action: 'deactivate' });
  });

  it('answers 404 for an unknown agent or an administrator id', async () => {
    const supervisor = await t.token('supervisor');
    expectNotFound(await t.call('activateAgent', { token: supervisor, params: { id: 99999 } }), 'actor', 99999);
    expectNotFound(await t.call('deactivateAgent', { token: supervisor, params: { id: ids.admin } }), 'actor', ids.admin);
  });

  it('refuses a team manager with 403 FORBIDDEN', async () => {
    expectRoleRefused(await t.call('activateAgent', { token: await t.token('manager'), params: { id: ids.agent } }), 'activateAgent');
    expectRoleRefused(await t.call('deactivateAgent', { token: await t.token('manager'), params: { id: ids.agent } }), 'deactivateAgent');
    const agent = await t.call('getAgentById', { token: await t.token('supervisor'), params: { id: ids.agent } });
    expect(agent.body.result.isActive).toBe(true);
  });
});

describe('POST /admin/actors/agents/bulk-action (bulkActionAgents)', () => {
  it("deactivates several agents, ends their accounts' sessions and reports the others", async () => {
    const account = await createAccount(t, { level: 'agent', actor: 'AGENT' });
    const token = await login(t, account.username);
    const plain = await newAgent();
    const res = await t.call('bulkActionAgents', {
      token: await t.token('admin'),
      body: { action: 'DEACTIVATE', ids: [account.actorId!, plain.id, ids.admin] },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      action: 'DEACTIVATE',
      processed: [account.actorId, plain.id],
      failed: [{ id: ids.admin, code: 'RESOURCE_NOT_FOUND', message: `Agent ${ids.admin} not found` }],
    });
    expect((await t.call('getProfile', { token })).status).toBe(401);
  });

  it('deletes the agents without account and keeps the linked ones', async () => {
    const plain = await newAgent();
    const res = await t.call('bulkActionAgents', {
      token: await t.token('admin'),
      body: { action: 'DELETE', ids: [plain.id, ids.agent2] },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.processed).toEqual([plain.id]);
    expect(res.body.result.failed).toEqual([
      { id: ids.agent2, code: 'RESOURCE_IN_USE', message: `Agent ${ids.agent2} is still referenced` },
    ]);
  });

  it('refuses a supervisor with 403 FORBIDDEN and an unknown action with 400', async () => {
    expectRoleRefused(
      await t.call('bulkActionAgents', { token: await t.token('supervisor'), body: { action: 'ACTIVATE', ids: [1] } }),
      'bulkActionAgents',
    );
    expectInvalid(
      await t.call('bulkActionAgents', { token: await t.token('admin'), payload: { action: 'ARCHIVE', ids: [1] } }),
      /^body\/action must be one of: /,
    );
  });
});
