import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { createUser, newUserBody, PASSWORD } from './support.js';

const t = useTestApp();
let admin: string;
let adminId: number;
beforeAll(async () => {
  admin = await t.token('admin');
  adminId = (await t.db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow()).id;
  // The demo `admin` is made the only active administrator of this database.
  const others = await t.db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .select('u.id')
    .where('r.access_level', 'in', ['admin', 'super_admin'])
    .where('u.id', '!=', adminId)
    .execute();
  if (others.length > 0)
    await t.db
      .updateTable('users')
      .set({ is_active: false })
      .where(
        'id',
        'in',
        others.map((o) => o.id),
      )
      .execute();
});

describe('the last active administrator', () => {
  it('cannot demote itself: 409 LAST_ADMINISTRATOR, and the role stays', async () => {
    const res = await t.call('updateUser', { token: admin, params: { id: adminId }, body: { roleId: 3 } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'LAST_ADMINISTRATOR', userId: adminId });
    const row = await t.db
      .selectFrom('users as u')
      .innerJoin('roles as r', 'r.id', 'u.role_id')
      .select('r.access_level')
      .where('u.id', '=', adminId)
      .executeTakeFirstOrThrow();
    expect(row.access_level).toBe('admin');
  });

  it('can be demoted once another administrator is active', async () => {
    const adminRole = await t.db.selectFrom('roles').select('id').where('access_level', '=', 'admin').executeTakeFirstOrThrow();
    const second = await createUser(t, { roleId: adminRole.id });
    const res = await t.call('updateUser', { token: admin, params: { id: second.id }, body: { roleId: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.result.role.accessLevel).toBe('agent');
  });
});

describe('login of a deactivated account', () => {
  it('answers exactly as a wrong password does (no password oracle)', async () => {
    const user = await createUser(t);
    await t.call('deactivateUser', { token: admin, params: { id: user.id } });
    const right = await t.call('login', { body: { username: user.username, password: PASSWORD } });
    const wrong = await t.call('login', { body: { username: user.username, password: 'not-the-password' } });
    expect(right.status).toBe(401);
    expect(right.body).toEqual(wrong.body);
    expect(right.body.errors).toEqual(['username or password is incorrect']);
  });
});

describe('password policy', () => {
  it.each([
    ['only whitespace', { password: '      ', confirmPassword: '      ' }, 'body/password must match pattern "\\S"'],
    [
      'equal to the username',
      { username: 'pat.doe', password: 'Pat.Doe', confirmPassword: 'Pat.Doe' },
      'body/password must not equal or contain the username or the e-mail',
    ],
    [
      'equal to the e-mail',
      { email: 'pat@example.test', password: 'pat@example.test', confirmPassword: 'pat@example.test' },
      'body/password must not equal or contain the username or the e-mail',
    ],
    [
      'containing the username',
      { username: 'pat.doe', password: 'my-Pat.Doe-2026', confirmPassword: 'my-Pat.Doe-2026' },
      'body/password must not equal or contain the username or the e-mail',
    ],
    [
      'that is the most common password',
      { password: '123456', confirmPassword: '123456' },
      'body/password must not be one of the 10000 most common passwords',
    ],
    [
      'that is a common password in capitals',
      { password: 'PASSWORD', confirmPassword: 'PASSWORD' },
      'body/password must not be one of the 10000 most common passwords',
    ],
    [
      'that is a common password',
      { password: 'qwerty123', confirmPassword: 'qwerty123' },
      'body/password must not be one of the 10000 most common passwords',
    ],
  ])('refuses a password %s with 400 naming the rule, and creates nothing', async (_name, overrides, rule) => {
    const body = newUserBody(overrides);
    const res = await t.call('createUser', { token: admin, body });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContain(rule);
    expect(await t.db.selectFrom('users').select('id').where('email', '=', body.email).execute()).toEqual([]);
  });

  it('accepts the demo password and an uncommon one (the control case)', async () => {
    for (const password of ['demo1234', 'Convoi#2026 mardi']) {
      const res = await t.call('createUser', { token: admin, body: newUserBody({ password, confirmPassword: password }) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const login = await t.call('login', { body: { username: res.body.result.username, password } });
      expect(login.body.result.user).toMatchObject({ id: res.body.result.id, username: res.body.result.username });
    }
  });

  it('applies to a password change too', async () => {
    const user = await createUser(t);
    const res = await t.call('changeUserPassword', {
      token: admin,
      params: { id: user.id },
      body: { newPassword: user.username, confirmPassword: user.username },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/newPassword must not equal or contain the username or the e-mail']);
    const common = await t.call('changeUserPassword', {
      token: admin,
      params: { id: user.id },
      body: { newPassword: 'iloveyou', confirmPassword: 'iloveyou' },
    });
    expect(common.status).toBe(400);
    expect(common.body.errors).toEqual(['body/newPassword must not be one of the 10000 most common passwords']);
    // The old password still logs in: nothing was changed.
    expect((await t.call('login', { body: { username: user.username, password: PASSWORD } })).status).toBe(200);
  });
});
