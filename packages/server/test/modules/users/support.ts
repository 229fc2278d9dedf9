import { expect } from 'vitest';
import type { TestApp } from '../../support/app.js';

/** Helpers shared by the users, roles and geography tests: fresh accounts and their logins. */

export const PASSWORD = 'Secret#2026';

let sequence = 0;
/** A createUser payload with a unique username and e-mail. */
export function newUserBody(overrides: Record<string, unknown> = {}) {
  const n = `${process.pid.toString(36)}${Date.now().toString(36)}${(sequence++).toString(36)}`;
  return {
    username: `user.${n}`,
    email: `user.${n}@example.test`,
    firstName: 'Test',
    lastName: `User ${n}`,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    roleId: 3,
    ...overrides,
  };
}

export interface CreatedUser {
  id: number;
  username: string;
  email: string;
  actorId: number | null;
  [key: string]: unknown;
}

/** Creates an account through the API (admin by default) and returns it. */
export async function createUser(t: TestApp, overrides: Record<string, unknown> = {}, token?: string): Promise<CreatedUser> {
  const res = await t.call('createUser', { token: token ?? (await t.token('admin')), body: newUserBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result;
}

export interface Login {
  access_token: string;
  refresh_token: string;
}

export async function login(t: TestApp, username: string, password = PASSWORD): Promise<Login> {
  const res = await t.call('login', { body: { username, password } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result;
}

/** Status of an authenticated call made with the token: 200 while its session lives, 401 once ended. */
export async function profileStatus(t: TestApp, token: string): Promise<number> {
  return (await t.call('getProfile', { token })).status;
}

/**
 * A super administrator's token. The demo data has no super administrator and nobody below that
 * level may create one, so an administrator account is created and promoted in the database.
 */
export async function superAdminToken(t: TestApp): Promise<string> {
  const user = await createUser(t, { roleId: 2 });
  await t.db.updateTable('users').set({ role_id: 1 }).where('id', '=', user.id).execute();
  return (await login(t, user.username)).access_token;
}

export async function userId(t: TestApp, username: string): Promise<number> {
  const row = await t.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
  return row.id;
}
