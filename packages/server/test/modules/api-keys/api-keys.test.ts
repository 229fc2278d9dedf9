import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectError, expectRoleRefused, expectUnauthenticated } from '../../support/expect.js';
import { loadRefs, type Refs, transportBody } from '../transports/fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const roleId = async (level: string) =>
  (
    await t.db
      .selectFrom('roles')
      .select('id')
      .where('access_level', '=', level as never)
      .orderBy('id')
      .executeTakeFirstOrThrow()
  ).id;

async function createKey(name: string, level: string, organizationId?: number) {
  const res = await t.call('createApiKey', {
    token: await t.token('admin'),
    body: organizationId === undefined ? { name, roleId: await roleId(level) } : { name, roleId: await roleId(level), organizationId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { key } = res.body.result;
  if (key === null) throw new Error('a first answer carries the key');
  return Object.assign(res.body.result, { key });
}

const withKey = (key: string) => ({ headers: { 'x-api-key': key } });

describe('partner API keys', () => {
  it('shows the key once, stores only its sha256, and lets it call what its role may', async () => {
    const created = await createKey('Partner ERP sync', 'supervisor');
    expect(created.key).toMatch(/^tok_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      name: 'Partner ERP sync',
      prefix: created.key.slice(0, 12),
      role: { accessLevel: 'supervisor' },
      accessLevelCap: 'supervisor',
      revokedAt: null,
    });
    const stored = await t.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.key_hash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(created.key);

    const events = await t.call('listEvents', withKey(created.key));
    expect(events.status).toBe(200);
    expect(Array.isArray(events.body.result.data)).toBe(true);
    const listed = await t.call('listApiKeys', { token: await t.token('admin') });
    const mine = listed.body.result.data.find((k: { id: number }) => k.id === created.id)!;
    expect(mine).not.toHaveProperty('key');
    expect(mine.lastUsedAt).not.toBeNull();
  });

  it('acts as its service account: an agent key owns what it creates and sees nothing of others', async () => {
    const created = await createKey('Agent integration', 'agent');
    const transport = await t.call(
      'createTransport',
      Object.assign(withKey(created.key), { body: transportBody(refs, { loadingPoint: 'Key dock' }) }),
    );
    expect(transport.status).toBe(201);
    const row = await t.db
      .selectFrom('transports')
      .select('created_by')
      .where('id', '=', transport.body.result.id)
      .executeTakeFirstOrThrow();
    expect(row.created_by).toBe(created.userId);
    const account = await t.db
      .selectFrom('users')
      .select(['username', 'role_id'])
      .where('id', '=', created.userId)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ username: `apikey-${created.id}`, role_id: created.role.id });
    const list = await t.call('listTransports', withKey(created.key));
    expect(list.body.result.data.map((x: { id: number }) => x.id)).toEqual([transport.body.result.id]);
    // The role check applies as to a person of that role.
    expectRoleRefused(await t.call('listEvents', withKey(created.key)), 'listEvents');
  });

  it('answers 401 for a revoked key, an unknown key, a key on an operation that takes none, and a key with a bearer token', async () => {
    const created = await createKey('Short-lived', 'admin');
    expect((await t.call('listWebhooks', withKey(created.key))).status).toBe(200);
    const revoked = await t.call('revokeApiKey', { token: await t.token('admin'), params: { id: created.id } });
    expect(revoked.status).toBe(200);
    expectUnauthenticated(await t.call('listWebhooks', withKey(created.key)), 'API key is unknown or revoked');
    expectUnauthenticated(await t.call('listWebhooks', withKey('tok_unknown')), 'API key is unknown or revoked');
    const row = await t.db.selectFrom('api_keys').select('revoked_at').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();

    const other = await createKey('Key admin', 'admin');
    expectUnauthenticated(await t.call('listApiKeys', withKey(other.key)), 'This operation does not accept an API key');
    const both = await t.call('listWebhooks', { token: await t.token('admin'), headers: { 'x-api-key': other.key } });
    expectUnauthenticated(both, 'Send either a bearer token or one X-API-Key, not both');
  });

  it('refuses a role above the caller, and callers below administrators', async () => {
    const login = await t.call('login', { body: { username: 'admin', password: 'demo1234' } });
    const token = login.body.result.access_token;
    const superRole = await roleId('super_admin');
    expectError(await t.call('createApiKey', { token, body: { name: 'Too high', roleId: superRole } }), 403, 'ROLE_NOT_ASSIGNABLE', {
      roleId: superRole,
    });
    expectRoleRefused(await t.call('createApiKey', { token: await t.token('supervisor'), body: { name: 'x', roleId: 3 } }), 'createApiKey');
    expectError(await t.call('revokeApiKey', { token, params: { id: 999999 } }), 404, 'RESOURCE_NOT_FOUND', {
      resource: 'apiKey',
      id: 999999,
    });
    expect(await t.db.selectFrom('api_keys').select('id').where('name', 'in', ['Too high', 'x']).execute()).toEqual([]);
  });

  it('caps a key at the level it was created with, and lets only administrators change the role of its account', async () => {
    const created = await createKey('Agent feed', 'agent');
    const supervisorRole = await roleId('supervisor');
    const bySupervisor = await t.call('updateUser', {
      token: await t.token('supervisor'),
      params: { id: created.userId },
      body: { roleId: supervisorRole },
    });
    expectError(bySupervisor, 403, 'FORBIDDEN', { requiredRoles: ['admin', 'super_admin'] });
    const unchanged = await t.db.selectFrom('users').select('role_id').where('id', '=', created.userId).executeTakeFirstOrThrow();
    expect(unchanged.role_id).toBe(created.role.id);

    const byAdmin = await t.call('updateUser', {
      token: await t.token('admin'),
      params: { id: created.userId },
      body: { roleId: supervisorRole },
    });
    expect(byAdmin.body.result.role.accessLevel).toBe('supervisor');
    // The account is a supervisor now; the key still acts as the agent it was created as.
    expectRoleRefused(await t.call('listUsers', withKey(created.key)), 'listUsers');
    const listed = await t.call('listApiKeys', { token: await t.token('admin') });
    expect(listed.body.result.data.find((k: { id: number }) => k.id === created.id)).toMatchObject({
      role: { accessLevel: 'supervisor' },
      accessLevelCap: 'agent',
    });
  });
});
