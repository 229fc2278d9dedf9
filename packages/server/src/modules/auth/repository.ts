import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AccessLevel } from '../../lib/identity.js';
import type { AccessPayload } from './tokens.js';

/** The account and everything its tokens and profile carry. */
export function selectAccount(db: Kysely<Database>) {
  return db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .innerJoin('countries as c', 'c.id', 'u.country_id')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .select([
      'u.id',
      'u.username',
      'u.email',
      'u.password_hash',
      'u.role_id',
      'r.name as role_name',
      'r.access_level',
      'u.country_id',
      'c.name as country_name',
      'u.organization_id',
      'u.is_active',
      'u.last_login',
      'u.created_at',
      'a.id as actor_id',
      'a.actor_role',
      'a.first_name',
      'a.last_name',
      'a.email as actor_email',
      'a.phone as actor_phone',
      'a.is_active as actor_is_active',
    ]);
}
export type Account = NonNullable<Awaited<ReturnType<ReturnType<typeof selectAccount>['executeTakeFirst']>>>;

export const findAccountByUsername = (db: Kysely<Database>, username: string) =>
  selectAccount(db).where('u.username', '=', username).executeTakeFirst();

export const findAccountById = (db: Kysely<Database>, id: number) => selectAccount(db).where('u.id', '=', id).executeTakeFirst();

export function tokenActor(account: Account) {
  return account.actor_id === null
    ? undefined
    : {
        id: account.actor_id,
        actor_role: account.actor_role!,
        first_name: account.first_name!,
        last_name: account.last_name!,
      };
}

export function accessPayload(account: Account, sessionId: number): AccessPayload {
  const actor = tokenActor(account);
  return {
    sub: account.id,
    username: account.username,
    email: account.email,
    role_id: account.role_id,
    country_id: account.country_id,
    ...(actor ? { actor } : {}),
    access_level: account.access_level as AccessLevel,
    org_id: account.organization_id,
    sid: sessionId,
  };
}

export async function openSession(
  db: Kysely<Database>,
  userId: number,
  expiresAt: Date,
  client: { ip: string; userAgent: string | null },
): Promise<number> {
  const row = await db
    .insertInto('sessions')
    .values({ user_id: userId, expires_at: expiresAt, ip_address: client.ip, user_agent: client.userAgent })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('users').set({ last_login: new Date() }).where('id', '=', userId).execute();
  return row.id;
}

/** The session behind a refresh token, if it is still usable. */
export async function usableSession(db: Kysely<Database>, sessionId: number, userId: number) {
  return db
    .selectFrom('sessions')
    .select(['id'])
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
}

export const touchSession = (db: Kysely<Database>, sessionId: number) =>
  db.updateTable('sessions').set({ last_used_at: new Date() }).where('id', '=', sessionId).execute();

/** When the session ends, and whether it was revoked (the session guard's check). */
export const sessionValidity = (db: Kysely<Database>, sessionId: number) =>
  db.selectFrom('sessions').select(['revoked_at', 'expires_at']).where('id', '=', sessionId).executeTakeFirst();

/** Revokes sessions in the database and returns their ids; call `guard.forget` after the commit. */
export async function revokeSessions(
  db: Kysely<Database>,
  where: { sessionId: number } | { userId: number },
  reason: string,
): Promise<number[]> {
  const rows = await db
    .updateTable('sessions')
    .set({ revoked_at: new Date(), revoked_reason: reason })
    .where('revoked_at', 'is', null)
    .where('sessionId' in where ? 'id' : 'user_id', '=', 'sessionId' in where ? where.sessionId : where.userId)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
