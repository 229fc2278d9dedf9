import type { operations } from '@transport-ops/contract';
import type { Kysely } from 'kysely';
import { type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { contains } from '../../lib/text.js';
import type { Database } from '../../db/schema.js';
import type { Req, Result } from '../../http/handlers.js';
import { iso } from '../../lib/time.js';
import { liveCount } from '../../lib/counters.js';

type Db = Kysely<Database>;
export type Role = Result<'getConfigRoleById'>;

export function selectRoles(db: Db) {
  return (
    db
      .selectFrom('roles as r')
      .select(['r.id', 'r.code', 'r.name', 'r.description', 'r.access_level', 'r.is_system', 'r.is_active', 'r.created_at', 'r.updated_at'])
      // Kept by triggers on users (migrations 0008 and 0016).
      .select(liveCount('roles.users_count', 'r').as('users_count'))
  );
}
type RoleRow = Awaited<ReturnType<ReturnType<typeof selectRoles>['executeTakeFirstOrThrow']>>;

export const toRole = (row: RoleRow): Role => ({
  id: row.id,
  code: row.code,
  name: row.name,
  description: row.description,
  accessLevel: row.access_level,
  isSystem: row.is_system,
  isActive: row.is_active,
  usersCount: Number(row.users_count),
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

export async function findRole(db: Db, id: number): Promise<Role | undefined> {
  const row = await selectRoles(db).where('r.id', '=', id).executeTakeFirst();
  return row && toRole(row);
}

/**
 * Ends the open sessions of every holder of the role (their tokens carry its access level), in the
 * caller's transaction; returns the ids for `sessions.forget` after the commit. One statement, the
 * same change as auth's `revokeSessions` applied to all holders at once.
 */
export async function revokeHolderSessions(trx: Db, roleId: number, reason: string): Promise<number[]> {
  const rows = await trx
    .updateTable('sessions')
    .set({ revoked_at: new Date(), revoked_reason: reason })
    .where('revoked_at', 'is', null)
    .where('user_id', 'in', trx.selectFrom('users').select('id').where('role_id', '=', roleId))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** The query parameters of the list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listConfigRoles']['parameters']['query']>;

/**
 * Each filter of the role list, declared once (lib/filter-spec.ts). Typed from the contract: a query
 * parameter of `listConfigRoles` with no entry here (and not a paging one) is a type error. The order
 * is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof selectRoles>>> = {
  search: {
    bind: same,
    where: (eb, v) => eb.or([contains('r.code', v as string), contains('r.name', v as string)]),
    columns: ['r.code', 'r.name'],
    text: true,
  },
  isActive: { bind: same, where: (eb, v) => eb('r.is_active', '=', v as boolean), columns: ['r.is_active'] },
};
const FILTER = filters(FILTERS);

export function listRoles(db: Db, q: Req<'listConfigRoles'>['query']) {
  return FILTER.apply(selectRoles(db), FILTER.bind(q, {})).orderBy('r.id');
}

/** Users holding the role: the counter the database keeps (migration 0008; exact under the row lock, see vehicleTypeUsage). */
export async function holdersCount(db: Db, roleId: number): Promise<number> {
  const row = await db
    .selectFrom('roles as r')
    .select(liveCount('roles.users_count', 'r').as('n'))
    .where('r.id', '=', roleId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
