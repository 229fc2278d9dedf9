import type { operations } from '@transport-ops/contract';
import { type Kysely, sql } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { ActorUpdate, Database, NewActor, NewUser, UserUpdate } from '../../db/schema.js';
import type { Query } from '../../http/handlers.js';
import { type TeamScope, teamOf, withinTeamScope } from '../../lib/scope.js';
import { queryShape } from '../../lib/query-shape.js';
import { fetchPreparedIdPage } from '../../lib/id-paging.js';
import type { AccessLevel, AuthContext } from '../../lib/identity.js';
import { contains } from '../../lib/text.js';
import { selectUsers } from './repository.js';

type Db = Kysely<Database>;

const SORT_COLUMNS = { createdAt: 'u.created_at', username: 'u.username', email: 'u.email', lastLogin: 'u.last_login' } as const;

/** The query parameters of the account list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listUsers']['parameters']['query']>;
type ListFilters = Omit<Query<'listUsers'>, 'page' | 'limit'>;

const usersFrom = (db: Db) => db.selectFrom('users as u');
type Where = WhereOf<ReturnType<typeof usersFrom>>;

/**
 * Each filter of the account list, declared once (lib/filter-spec.ts), applied by the base query
 * to the page and its count. Typed from the contract: a query parameter of `listUsers` with no
 * entry here (and not a paging one) is a type error. The order is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, Where> = {
  search: {
    bind: same,
    // Username, e-mail, or the actor's names (the actor joined only for this).
    where: (eb, v) => {
      const search = v as string;
      return eb.or([
        contains('u.username', search),
        contains('u.email', search),
        eb.exists(
          eb
            .selectFrom('actors as a')
            .select('a.id')
            .whereRef('a.id', '=', 'u.actor_id')
            .where((a) => a.or([contains('a.first_name', search), contains('a.last_name', search)])),
        ),
      ]);
    },
    columns: ['u.username', 'u.email', 'u.actor_id'],
    text: true,
  },
  roleId: { bind: same, where: (eb, v) => eb('u.role_id', '=', v as number), columns: ['u.role_id'] },
  organizationId: { bind: same, where: (eb, v) => eb('u.organization_id', '=', v as number), columns: ['u.organization_id'] },
  countryId: { bind: same, where: (eb, v) => eb('u.country_id', '=', v as number), columns: ['u.country_id'] },
  isActive: { bind: same, where: (eb, v) => eb('u.is_active', '=', v as boolean), columns: ['u.is_active'] },
};
const FILTER = filters(FILTERS);

/** The accounts the caller may see, filtered and ordered (accounts that never logged in come last either way). */
type ListParams = TeamScope &
  BoundFilters<ListParameters> &
  Pick<ListFilters, 'sortOrder'> & {
    sortBy: NonNullable<ListFilters['sortBy']>;
  };

/**
 * The list's base as a query shape (lib/query-shape.ts), compiled once per team scope,
 * combination of filters and order: the accounts' ids in the list's order, from `users` alone
 * (their actors joined only to search their names).
 */
const accountBase = queryShape<ListParams, unknown>(
  { values: ['teamId', ...FILTER.values], structure: ['scope', 'sortBy', 'sortOrder', ...FILTER.structure] },
  (db, p) => {
    const query = FILTER.apply(usersFrom(db).select('u.id').where(withinTeamScope(p, 'u.organization_id')), p);
    const direction = p.sortOrder === 'ASC' ? sql`asc` : sql`desc`;
    return query.orderBy(sql`${sql.ref(SORT_COLUMNS[p.sortBy])} ${direction} nulls last`).orderBy(sql`u.id ${direction}`);
  },
);

/** Accounts by id, with their role, country, organization and actor (any order). */
const accountsById = queryShape({ values: ['ids'] }, (db, p: { ids: number[] }) =>
  selectUsers(db).where('u.id', '=', sql<number>`any(${p.ids})`),
);

/**
 * One page of the accounts the caller may see: the page's ids from `users` alone, then their
 * full rows (lib/id-paging.ts); the total is counted on `users` alone and capped like every list's.
 */
export function listAccounts(db: Db, auth: AuthContext, f: ListFilters & { page: number; limit: number }) {
  const base = accountBase.with(
    FILTER.bind(f, Object.assign({}, teamOf(auth), { sortBy: f.sortBy ?? 'createdAt', sortOrder: f.sortOrder ?? 'DESC' })),
  );
  return fetchPreparedIdPage(db, base, 'u.id', accountsById, f);
}

/** Creates an account and its actor (they point at each other); returns the account's id. */
export async function insertAccount(trx: Db, actor: NewActor, user: Omit<NewUser, 'actor_id'>): Promise<number> {
  const { id: actorId } = await trx.insertInto('actors').values(actor).returning('id').executeTakeFirstOrThrow();
  const { id } = await trx
    .insertInto('users')
    .values(Object.assign({}, user, { actor_id: actorId }))
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx.updateTable('actors').set({ user_id: id }).where('id', '=', actorId).execute();
  return id;
}

/** Changes an account and, when it has one, its actor. */
export async function updateAccount(
  trx: Db,
  target: { id: number; actor_id: number | null },
  user: UserUpdate,
  actor: ActorUpdate,
): Promise<void> {
  const now = new Date();
  await trx
    .updateTable('users')
    .set(Object.assign({}, user, { updated_at: now }))
    .where('id', '=', target.id)
    .execute();
  if (target.actor_id !== null) {
    await trx
      .updateTable('actors')
      .set(Object.assign({}, actor, { updated_at: now }))
      .where('id', '=', target.actor_id)
      .execute();
  }
}

/** Sets the state of the account and of its actor (they share one). */
export const setAccountActive = (trx: Db, target: { id: number; actor_id: number | null }, isActive: boolean) =>
  updateAccount(trx, target, { is_active: isActive }, { is_active: isActive });

/** Deletes the account (its sessions cascade, actors.user_id is set null), then its actor. */
export async function deleteAccount(trx: Db, target: { id: number; actor_id: number | null }): Promise<void> {
  await trx.deleteFrom('users').where('id', '=', target.id).execute();
  if (target.actor_id !== null) await trx.deleteFrom('actors').where('id', '=', target.actor_id).execute();
}

export async function setPasswordHash(trx: Db, userId: number, passwordHash: string): Promise<void> {
  await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: new Date() }).where('id', '=', userId).execute();
}

/** The other active accounts at one of `levels`, row-locked for the rest of the transaction. */
export const lockOtherActiveAccounts = (trx: Db, exceptUserId: number, levels: readonly AccessLevel[]) =>
  trx
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .select('u.id')
    .where('u.is_active', '=', true)
    .where('r.access_level', 'in', [...levels])
    .where('u.id', '!=', exceptUserId)
    .forUpdate('u')
    .execute();

/** Whether the account is an API key's service account. */
export async function isApiKeyAccount(db: Kysely<Database>, userId: number): Promise<boolean> {
  const key = await db.selectFrom('api_keys').select('id').where('user_id', '=', userId).executeTakeFirst();
  return key !== undefined;
}
