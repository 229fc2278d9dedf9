import { DEMO_PASSWORD, type TestApp } from '../../support/app.js';

/*
 * Records no operation can make: accounts without an actor (every account the users module creates
 * gets one) and super administrators (no demo account has that level). Inserted straight into
 * the test's own database; everything under test goes through `t.call`.
 */

export const ROLE = { super_admin: 1, admin: 2, agent: 3, team_manager: 4, supervisor: 5 } as const;

export interface AccountOptions {
  level: keyof typeof ROLE;
  organizationCode?: string;
  /** Also give the account an actor of this family, linked both ways. */
  actor?: 'ADMIN' | 'AGENT';
}

export interface Account {
  userId: number;
  username: string;
  actorId: number | null;
}

let counter = 0;

export async function organizationId(t: TestApp, code: string): Promise<number> {
  const row = await t.db.selectFrom('organizations').select('id').where('code', '=', code).executeTakeFirstOrThrow();
  return row.id;
}

/** An account with the demo password, optionally with an actor. */
export async function createAccount(t: TestApp, options: AccountOptions): Promise<Account> {
  counter += 1;
  const username = `fixture.${options.level}.${counter}.${Math.random().toString(36).slice(2, 8)}`;
  const demo = await t.db
    .selectFrom('users')
    .select(['password_hash', 'country_id'])
    .where('username', '=', 'admin')
    .executeTakeFirstOrThrow();
  const orgId = options.organizationCode ? await organizationId(t, options.organizationCode) : null;
  const user = await t.db
    .insertInto('users')
    .values({
      username,
      email: `${username}@fixtures.example`,
      password_hash: demo.password_hash,
      role_id: ROLE[options.level],
      country_id: demo.country_id,
      organization_id: orgId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  let actorId: number | null = null;
  if (options.actor) {
    const actor = await t.db
      .insertInto('actors')
      .values({
        actor_role: options.actor,
        first_name: 'Fixture',
        last_name: `Person ${counter}`,
        email: `${username}@fixtures.example`,
        organization_id: orgId,
        user_id: user.id,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db.updateTable('users').set({ actor_id: actor.id }).where('id', '=', user.id).execute();
    actorId = actor.id;
  }
  return { userId: user.id, username, actorId };
}

export async function login(t: TestApp, username: string): Promise<string> {
  const res = await t.call('login', { body: { username, password: DEMO_PASSWORD } });
  if (res.status !== 200) throw new Error(`login of ${username} failed: ${JSON.stringify(res.body)}`);
  return res.body.result.access_token as string;
}

/** A super administrator with an administrator actor, logged in. */
export async function superAdmin(t: TestApp): Promise<Account & { token: string }> {
  const account = await createAccount(t, { level: 'super_admin', organizationCode: 'TOG', actor: 'ADMIN' });
  return { ...account, token: await login(t, account.username) };
}

/** The actor id of a demo account. */
export async function actorIdOf(t: TestApp, username: string): Promise<number> {
  const row = await t.db.selectFrom('users').select('actor_id').where('username', '=', username).executeTakeFirstOrThrow();
  return row.actor_id!;
}

export function uniqueEmail(prefix: string): string {
  counter += 1;
  return `${prefix}.${counter}.${Math.random().toString(36).slice(2, 8)}@example.com`;
}
