import type { operations } from '@transport-ops/contract';
import { sql, type Kysely, type SqlBool } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { queryShape } from '../../lib/query-shape.js';
import type { AccessLevel } from '../../lib/identity.js';
import type { ActorRole, Database } from '../../db/schema.js';
import type { Result } from '../../http/handlers.js';
import { iso } from '../../lib/time.js';

type Db = Kysely<Database>;
export type User = Result<'getUserById'>;
export type Session = Result<'getSessionById'>;

/** The actor family an account of this level belongs to. */
export const actorFamily = (level: AccessLevel): ActorRole => (level === 'admin' || level === 'super_admin' ? 'ADMIN' : 'AGENT');

// ------------------------------------------------------------------ accounts

export function selectUsers(db: Db) {
  return db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .innerJoin('countries as c', 'c.id', 'u.country_id')
    .leftJoin('organizations as o', 'o.id', 'u.organization_id')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .select([
      'u.id',
      'u.username',
      'u.email',
      'a.first_name',
      'a.last_name',
      'a.actor_role',
      'r.id as role_id',
      'r.code as role_code',
      'r.name as role_name',
      'r.access_level',
      'c.id as country_id',
      'c.code as country_code',
      'c.name as country_name',
      'o.id as organization_id',
      'o.name as organization_name',
      'u.actor_id',
      'u.is_active',
      'u.last_login',
      'u.created_at',
      'u.updated_at',
    ]);
}
export type UserRow = Awaited<ReturnType<ReturnType<typeof selectUsers>['executeTakeFirstOrThrow']>>;

/** The fields of an account the audit log compares (lib/audit.ts), named as in the request bodies. */
export const auditedFields = (row: UserRow) => ({
  username: row.username,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  roleId: row.role_id,
  organizationId: row.organization_id,
  countryId: row.country_id,
  isActive: row.is_active,
});

export const toUser = (row: UserRow): User => ({
  id: row.id,
  username: row.username,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  role: { id: row.role_id, code: row.role_code, name: row.role_name, accessLevel: row.access_level },
  country: { id: row.country_id, code: row.country_code, name: row.country_name },
  organization: row.organization_id === null ? null : { id: row.organization_id, name: row.organization_name! },
  actorId: row.actor_id,
  isActive: row.is_active,
  lastLogin: iso(row.last_login),
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

export const findUserRow = (db: Db, id: number) => selectUsers(db).where('u.id', '=', id).executeTakeFirst();

export async function loadUser(db: Db, id: number): Promise<User> {
  return toUser(await selectUsers(db).where('u.id', '=', id).executeTakeFirstOrThrow());
}

// ------------------------------------------------------------------ references of a payload

export const findActiveRole = (db: Db, id: number) =>
  db.selectFrom('roles').select(['id', 'access_level']).where('id', '=', id).where('is_active', '=', true).executeTakeFirst();

export const organizationExists = async (db: Db, id: number) =>
  (await db.selectFrom('organizations').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

export const activeCountryExists = async (db: Db, id: number) =>
  (await db.selectFrom('countries').select('id').where('id', '=', id).where('is_active', '=', true).executeTakeFirst()) !== undefined;

export async function accountCountry(db: Db, userId: number): Promise<number> {
  const row = await db.selectFrom('users').select('country_id').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.country_id;
}

export const usernameTaken = async (db: Db, username: string) =>
  (await db.selectFrom('users').select('id').where(sql<SqlBool>`lower(username) = lower(${username})`).limit(1).executeTakeFirst()) !==
  undefined;

export async function userEmailTaken(db: Db, email: string, exceptUserId: number | null): Promise<boolean> {
  let query = db.selectFrom('users').select('id').where(sql<SqlBool>`lower(email) = lower(${email})`);
  if (exceptUserId !== null) query = query.where('id', '<>', exceptUserId);
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

/** True when another actor of the family already uses the e-mail (case-insensitive). */
export async function actorEmailTaken(db: Db, family: ActorRole, email: string, exceptActorId: number | null): Promise<boolean> {
  let query = db.selectFrom('actors').select('id').where('actor_role', '=', family).where(sql<SqlBool>`lower(email) = lower(${email})`);
  if (exceptActorId !== null) query = query.where('id', '<>', exceptActorId);
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Records that keep an account from being deleted: what it created or authored, its votes, likes and
 * reports (they feed counters), and the organizations it manages.
 */
export async function accountUsage(db: Db, userId: number): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select
      (select count(*) from transports where created_by = ${userId})
    + (select count(*) from transport_status_history where created_by = ${userId})
    + (select count(*) from transport_documents where uploaded_by = ${userId})
    + (select count(*) from complaints where created_by = ${userId})
    + (select count(*) from complaint_status_history where created_by = ${userId})
    + (select count(*) from complaint_attachments where uploaded_by = ${userId})
    + (select count(*) from forum_topics where author_id = ${userId})
    + (select count(*) from forum_messages where author_id = ${userId})
    + (select count(*) from forum_votes where user_id = ${userId})
    + (select count(*) from forum_topic_likes where user_id = ${userId})
    + (select count(*) from forum_reports where reporter_id = ${userId})
    + (select count(*) from announcements where author_id = ${userId})
    + (select count(*) from announcement_likes where user_id = ${userId})
    + (select count(*) from tutorials where author_id = ${userId})
    + (select count(*) from organizations where manager_user_id = ${userId}) as n`.execute(db);
  return Number(rows[0]!.n);
}

// ------------------------------------------------------------------ sessions

export function selectSessions(db: Db) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .select([
      's.id',
      's.user_id',
      'u.username',
      'r.access_level',
      's.created_at',
      's.last_used_at',
      's.expires_at',
      's.revoked_at',
      's.ip_address',
      's.user_agent',
    ]);
}
export type SessionRow = Awaited<ReturnType<ReturnType<typeof selectSessions>['executeTakeFirstOrThrow']>>;

/** The query parameters of the session list, as the contract declares them. */
export type SessionListParameters = NonNullable<operations['listSessions']['parameters']['query']>;

/**
 * Each filter of the session list, declared once (lib/filter-spec.ts). Typed from the contract: a
 * query parameter of `listSessions` with no entry here (and not a paging one) is a type error.
 */
export const SESSION_FILTERS: FilterSpecs<SessionListParameters, WhereOf<ReturnType<typeof selectSessions>>> = {
  userId: { bind: same, where: (eb, v) => eb('s.user_id', '=', v as number), columns: ['s.user_id'] },
  // Open or closed at `now` (bound): two conditions of different shapes.
  active: {
    bind: same,
    where: (eb, v, p) => {
      const now = p.now as Date;
      return v
        ? eb.and([eb('s.revoked_at', 'is', null), eb('s.expires_at', '>', now)])
        : eb.or([eb('s.revoked_at', 'is not', null), eb('s.expires_at', '<=', now)]);
    },
    columns: ['s.revoked_at', 's.expires_at'],
    structure: true,
  },
};
const SESSION_FILTER = filters(SESSION_FILTERS);

/** The session list, newest first, as a query shape (lib/query-shape.ts): compiled once per combination of filters. */
const sessionList = queryShape(
  { values: [...SESSION_FILTER.values, 'now'], structure: SESSION_FILTER.structure },
  (db, p: BoundFilters<SessionListParameters> & { now: Date | undefined }) =>
    SESSION_FILTER.apply(selectSessions(db), p).orderBy('s.created_at', 'desc').orderBy('s.id', 'desc'),
);

/** Sessions, of one user or all, open (`active`) or closed, newest first. */
export const listSessionsQuery = (f: SessionListParameters) =>
  sessionList.with(SESSION_FILTER.bind(f, { now: f.active === undefined ? undefined : new Date() }));

export const sessionIsActive = (row: Pick<SessionRow, 'revoked_at' | 'expires_at'>, now = Date.now()) =>
  row.revoked_at === null && new Date(row.expires_at).getTime() > now;

export const toSession = (row: SessionRow): Session => ({
  id: row.id,
  userId: row.user_id,
  username: row.username,
  createdAt: iso(row.created_at),
  lastUsedAt: iso(row.last_used_at),
  expiresAt: iso(row.expires_at),
  revokedAt: iso(row.revoked_at),
  ipAddress: row.ip_address,
  userAgent: row.user_agent,
  isActive: sessionIsActive(row),
});

/** How many of these sessions were still open (not expired) when they were revoked. */
export async function countUnexpired(db: Db, ids: number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('id', 'in', ids)
    .where('expires_at', '>', new Date())
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
