import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectRoleRefused } from '../../support/expect.js';
import { createUser, login, newUserBody, PASSWORD, userId } from '../users/support.js';
import { entriesOf, entryOf, requestIdOf, storedLog } from './support.js';

const t = useTestApp();

describe('the audit log of accounts (users, passwords, sessions)', () => {
  it('records a creation with who, what, when and from where, and never the password', async () => {
    const body = newUserBody({ roleId: 4 });
    const res = await t.call('createUser', {
      token: await t.token('supervisor'),
      body,
      headers: { 'user-agent': 'audit-test/1.0' },
      remoteAddress: '198.51.100.7',
    });
    expect(res.status).toBe(201);
    const entry = await entryOf(t, res);
    expect(entry).toMatchObject({
      action: 'user.created',
      actor: { userId: await userId(t, 'supervisor'), username: 'supervisor', role: 'supervisor', apiKeyId: null },
      resource: { type: 'user', id: res.body.result.id },
      before: null,
      after: { username: body.username, email: body.email, firstName: 'Test', roleId: 4, isActive: true },
      source: { ip: '198.51.100.7', userAgent: 'audit-test/1.0', requestId: requestIdOf(res) },
    });
    expect(Date.now() - Date.parse(entry.occurredAt)).toBeLessThan(3_600_000);
    const stored = await storedLog(t);
    expect(stored).not.toContain(PASSWORD);
    expect(stored).not.toContain('$argon2');
  });

  it('records an update with only the changed fields, and a role change as user.role_changed', async () => {
    const user = await createUser(t);
    const update = await t.call('updateUser', {
      token: await t.token('admin'),
      params: { id: user.id },
      body: { firstName: 'Renamed', lastName: user.lastName as string, email: user.email },
    });
    expect(update.status).toBe(200);
    expect(await entryOf(t, update)).toMatchObject({
      action: 'user.updated',
      resource: { type: 'user', id: user.id },
      before: { firstName: 'Test' },
      after: { firstName: 'Renamed' },
    });
    const entry = await entryOf(t, update);
    expect(Object.keys(entry.after!)).toEqual(['firstName']);

    await login(t, user.username);
    const role = await t.call('updateUser', { token: await t.token('admin'), params: { id: user.id }, body: { roleId: 4 } });
    expect(role.status).toBe(200);
    expect(await entryOf(t, role)).toMatchObject({
      action: 'user.role_changed',
      before: { roleId: 3 },
      after: { roleId: 4 },
      details: { revokedSessions: 1 },
    });
  });

  it('records deactivation, activation and deletion', async () => {
    const user = await createUser(t);
    const admin = await t.token('admin');
    const off = await t.call('deactivateUser', { token: admin, params: { id: user.id } });
    expect(await entryOf(t, off)).toMatchObject({ action: 'user.deactivated', before: { isActive: true }, after: { isActive: false } });
    const on = await t.call('activateUser', { token: admin, params: { id: user.id } });
    expect(await entryOf(t, on)).toMatchObject({ action: 'user.activated', before: { isActive: false }, after: { isActive: true } });
    const gone = await t.call('deleteUser', { token: admin, params: { id: user.id } });
    expect(gone.status).toBe(200);
    expect(await entryOf(t, gone)).toMatchObject({
      action: 'user.deleted',
      resource: { type: 'user', id: user.id },
      before: { username: user.username, email: user.email },
      after: null,
    });
  });

  it('records a password reset by staff as changed, never its value', async () => {
    const user = await createUser(t);
    const newPassword = 'Fresh!Password#93';
    const res = await t.call('changeUserPassword', {
      token: await t.token('supervisor'),
      params: { id: user.id },
      body: { newPassword, confirmPassword: newPassword },
    });
    expect(res.status).toBe(200);
    expect(await entryOf(t, res)).toMatchObject({
      action: 'user.password_reset',
      actor: { username: 'supervisor', role: 'supervisor' },
      resource: { type: 'user', id: user.id },
      before: { password: '[redacted]' },
      after: { password: '[redacted]' },
    });
    expect(await storedLog(t)).not.toContain(newPassword);
  });

  it('records the revocation of one session and of all sessions of an account', async () => {
    const user = await createUser(t);
    await login(t, user.username);
    await login(t, user.username);
    const admin = await t.token('admin');
    const sessions = await t.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).orderBy('id').execute();
    const one = await t.call('revokeSession', { token: admin, params: { id: sessions[0]!.id } });
    expect(one.status).toBe(200);
    expect(await entryOf(t, one)).toMatchObject({
      action: 'session.revoked',
      resource: { type: 'session', id: sessions[0]!.id },
      details: { userId: user.id },
    });
    const all = await t.call('revokeUserSessions', { token: admin, params: { id: user.id } });
    expect(all.body.result.revokedCount).toBe(1);
    expect(await entryOf(t, all)).toMatchObject({
      action: 'user.sessions_revoked',
      resource: { type: 'user', id: user.id },
      details: { revokedSessions: 1 },
    });
  });
});

describe('the audit log of logins', () => {
  it('records a failed login (401) in its own transaction, with the reason and never the password tried', async () => {
    const user = await createUser(t);
    const wrong = await t.call('login', { body: { username: user.username, password: 'Not-The-Password-77' } });
    expect(wrong.status).toBe(401);
    expect(await entryOf(t, wrong)).toMatchObject({
      action: 'auth.login_failed',
      actor: { userId: null, username: null, role: null, apiKeyId: null },
      resource: { type: 'user', id: user.id },
      details: { username: user.username, reason: 'wrong_password' },
    });
    const unknown = await t.call('login', { body: { username: 'nobody.here', password: 'Whatever-123' } });
    expect(await entryOf(t, unknown)).toMatchObject({
      resource: { type: 'user', id: null },
      details: { username: 'nobody.here', reason: 'unknown_username' },
    });
    const stored = await storedLog(t);
    expect(stored).not.toContain('Not-The-Password-77');
    expect(stored).not.toContain('Whatever-123');
  });

  it('records each attempt refused by a lock (429 LOGIN_LOCKED)', async () => {
    const user = await createUser(t);
    const { maxFailures } = t.app.config.loginThrottle;
    for (let i = 0; i < maxFailures; i++) await t.call('login', { body: { username: user.username, password: `wrong-${i}-xyz` } });
    const locked = await t.call('login', { body: { username: user.username, password: PASSWORD } });
    expect(locked.status).toBe(429);
    const entry = await entryOf(t, locked);
    expect(entry).toMatchObject({ action: 'auth.login_locked', details: { username: user.username } });
    expect(entry.details!.retryAfterSeconds).toBeGreaterThan(0);
    const failed = await t.call('listAuditLog', {
      token: await t.token('admin'),
      query: { action: 'auth.login_failed', resourceType: 'user', resourceId: user.id },
    });
    expect(failed.body.result.data).toHaveLength(maxFailures);
  });
});

describe('GET /admin/audit-log (listAuditLog)', () => {
  it('is refused to agents, team managers and supervisors', async () => {
    for (const who of ['agent', 'manager', 'supervisor'] as const) {
      expectRoleRefused(await t.call('listAuditLog', { token: await t.token(who) }), 'listAuditLog');
    }
  });

  it('filters by actor, action and time, and pages on with a cursor', async () => {
    const admin = await t.token('admin');
    // From the database's clock, after every earlier test's entries (the suite's app is shared).
    const { rows } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(t.db);
    const start = new Date(rows[0]!.now).toISOString();
    const created = [await createUser(t), await createUser(t), await createUser(t)];
    const adminId = await userId(t, 'admin');
    const first = await t.call('listAuditLog', {
      token: admin,
      query: { actorId: adminId, action: 'user.created', startDate: start, limit: 2 },
    });
    expect(first.status).toBe(200);
    expect(first.body.result.data.map((e) => e.resource.id)).toEqual([created[2]!.id, created[1]!.id]);
    expect(first.body.result.meta.total).toBe(3);
    const next = await t.call('listAuditLog', {
      token: admin,
      query: { actorId: adminId, action: 'user.created', startDate: start, limit: 2, cursor: first.body.result.meta.next_cursor! },
    });
    expect(next.body.result.data.map((e) => e.resource.id)).toEqual([created[0]!.id]);
    expect(next.body.result.meta.next_cursor).toBeNull();
    const none = await t.call('listAuditLog', { token: admin, query: { actorId: adminId, endDate: '2000-01-01T00:00:00Z' } });
    expect(none.body.result.data).toEqual([]);
    const bad = await t.call('listAuditLog', { token: admin, query: { resourceId: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['querystring/resourceId requires resourceType']);
  });
});

describe('the audit log table', () => {
  it('keeps no entry of a change that rolled back', async () => {
    const user = await createUser(t);
    // A reference that appears between the usage count and the deletion: the delete fails after the audit call.
    await sql`create function audit_test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'referenced' using errcode = '23503'; end $$`.execute(t.db);
    await sql`create trigger audit_test_refuse before delete on users for each row
      when (old.id = ${sql.lit(user.id)}) execute function audit_test_refuse()`.execute(t.db);
    try {
      const res = await t.call('deleteUser', { token: await t.token('admin'), params: { id: user.id } });
      expect(res.status).toBe(409);
      expect(res.body.errors).toMatchObject({ code: 'RESOURCE_IN_USE', resource: 'user', id: user.id });
      expect(await entriesOf(t, res)).toEqual([]);
      const rows = await t.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'user.deleted')
        .where('resource_id', '=', user.id)
        .execute();
      expect(rows).toEqual([]);
    } finally {
      await sql`drop trigger audit_test_refuse on users`.execute(t.db);
      await sql`drop function audit_test_refuse()`.execute(t.db);
    }
  });

  it('refuses UPDATE, DELETE and TRUNCATE in SQL; only the retention sweep removes entries', async () => {
    await createUser(t);
    const before = await t.db.selectFrom('audit_log').select(['id', 'action']).orderBy('id').execute();
    expect(before.length).toBeGreaterThan(0);
    await expect(sql`update audit_log set action = 'user.forged'`.execute(t.db)).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(sql`delete from audit_log`.execute(t.db)).rejects.toThrow(/append-only: DELETE refused/);
    await expect(sql`truncate audit_log`.execute(t.db)).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect(await t.db.selectFrom('audit_log').select(['id', 'action']).orderBy('id').execute()).toEqual(before);

    // The sweep removes what is older than the retention, and nothing else.
    const days = t.app.config.audit.retentionDays;
    expect(await t.app.sweepAuditLog(new Date(Date.now() + (days - 1) * 86_400_000))).toBe(0);
    expect(await t.app.sweepAuditLog(new Date(Date.now() + (days + 1) * 86_400_000))).toBe(before.length);
    expect(await t.db.selectFrom('audit_log').select('id').execute()).toEqual([]);
  });
});
