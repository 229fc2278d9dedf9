import type { operations } from '@transport-ops/contract';
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { ActorRole, ActorUpdate, Database, NewActor } from '../../db/schema.js';
import { fetchIdPage } from '../../lib/id-paging.js';
import { containing } from '../../lib/text.js';
import { queryShape } from '../../lib/query-shape.js';
import { type TeamScope, withinTeamScope } from '../../lib/scope.js';
import type { Defaulted, Query } from '../../http/handlers.js';

/**
 * Actors of one family with their organization and account references; customers also carry
 * their usage counters (the `$if` columns are absent for the other families).
 */
export function selectActors(db: Kysely<Database>, role: ActorRole) {
  return db
    .selectFrom('actors as a')
    .leftJoin('organizations as o', 'o.id', 'a.organization_id')
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .where('a.actor_role', '=', role)
    .select([
      'a.id',
      'a.public_id',
      'a.actor_role',
      'a.first_name',
      'a.last_name',
      'a.email',
      'a.phone',
      'a.address',
      'a.organization_id',
      'o.name as organization_name',
      'a.user_id',
      'u.username',
      'a.is_active',
      'a.created_at',
      'a.updated_at',
    ])
    .$if(role === 'CUSTOMER', (qb) =>
      qb.select((eb) => [
        eb
          .selectFrom('transports as t')
          .whereRef('t.customer_id', '=', 'a.id')
          .select(eb.fn.countAll<number>().as('n'))
          .as('transports_count'),
        eb
          .selectFrom('complaints as c')
          .whereRef('c.customer_id', '=', 'a.id')
          .select(eb.fn.countAll<number>().as('n'))
          .as('complaints_count'),
      ]),
    );
}
export type ActorRow = Awaited<ReturnType<ReturnType<typeof selectActors>['executeTakeFirstOrThrow']>>;

export type ActorFilters = Defaulted<Omit<Query<'listAdmins'>, 'page' | 'limit'>, 'sortBy' | 'sortOrder'> & { page: number; limit: number };

const SORT_COLUMNS = { createdAt: 'a.created_at', lastName: 'a.last_name', firstName: 'a.first_name' } as const;

/** The query parameters of the three actor lists, as the contract declares them. */
export type ListParameters = NonNullable<operations['listAdmins']['parameters']['query']> &
  NonNullable<operations['listAgents']['parameters']['query']> &
  NonNullable<operations['listCustomers']['parameters']['query']>;

const actorsFrom = (db: Kysely<Database>) => db.selectFrom('actors as a');
type Where = WhereOf<ReturnType<typeof actorsFrom>>;

/**
 * Each filter of the actor lists, declared once (lib/filter-spec.ts), applied by `baseQuery` to
 * the page and its count. Typed from the contract: a query parameter of `listAdmins`, `listAgents`
 * or `listCustomers` with no entry here (and not a paging one) is a type error. The order is the
 * order of the conditions in the statement.
 */
export const FILTERS: FilterSpecs<ListParameters, Where> = {
  search: {
    bind: containing,
    // The expression of the trigram index actors_search_trgm_idx (migration 0007): names, e-mail and phone.
    where: (eb, v) =>
      eb(sql`a.first_name || ' ' || a.last_name || ' ' || coalesce(a.email, '') || ' ' || coalesce(a.phone, '')`, 'ilike', v as string),
    columns: ['a.first_name', 'a.last_name', 'a.email', 'a.phone'],
    text: true,
  },
  isActive: { bind: same, where: (eb, v) => eb('a.is_active', '=', v as boolean), columns: ['a.is_active'] },
  organizationId: { bind: same, where: (eb, v) => eb('a.organization_id', '=', v as number), columns: ['a.organization_id'] },
};
const FILTER = filters(FILTERS);

type BaseParams = TeamScope &
  BoundFilters<ListParameters> & {
    role: ActorRole;
    sortBy: ActorFilters['sortBy'];
    sortOrder: ActorFilters['sortOrder'];
  };

function baseQuery(db: Kysely<Database>, scope: Expression<SqlBool>, p: Omit<BaseParams, keyof TeamScope>) {
  const direction = p.sortOrder === 'ASC' ? 'asc' : 'desc';
  const base = FILTER.apply(actorsFrom(db).where('a.actor_role', '=', p.role).where(scope), p);
  return base.orderBy(SORT_COLUMNS[p.sortBy], direction).orderBy('a.id', direction);
}

const baseParams = (role: ActorRole, f: Omit<ActorFilters, 'page' | 'limit'>) =>
  FILTER.bind(f, { role, sortBy: f.sortBy, sortOrder: f.sortOrder });

/** The base query as a query shape (lib/query-shape.ts): compiled once per family, scope, filters and order. */
const baseShape = queryShape<BaseParams, unknown>(
  { values: ['teamId', ...FILTER.values], structure: ['role', 'scope', 'sortBy', 'sortOrder', ...FILTER.structure] },
  (db, p) => baseQuery(db, withinTeamScope(p, 'a.organization_id'), p),
);

/** A family's actors in `scope` that pass the filters, in the list's order: the base table only, no joins. */
export function listBase(db: Kysely<Database>, role: ActorRole, scope: Expression<SqlBool>, f: Omit<ActorFilters, 'page' | 'limit'>) {
  return baseQuery(db, scope, baseParams(role, f));
}

/** Actors of a family by id, with their references (any order). */
const actorsById = queryShape({ values: ['ids'], structure: ['role'] }, (db, p: { role: ActorRole; ids: number[] }) =>
  selectActors(db, p.role).where('a.id', '=', sql<number>`any(${p.ids})`),
);

/** One page of a family's actors in `team`: ids from the filtered base table (no joins), then their rows; the total on the base table. */
export function listActors(db: Kysely<Database>, role: ActorRole, team: TeamScope, f: ActorFilters) {
  return fetchIdPage(db, baseShape.with(Object.assign({}, team, baseParams(role, f))), {
    id: 'a.id',
    page: f.page,
    limit: f.limit,
    load: (ids) => actorsById.execute(db, { role, ids }),
    idOf: (row) => row.id,
  });
}

export const findActor = (db: Kysely<Database>, role: ActorRole, id: number, scope: Expression<SqlBool> = sql<SqlBool>`true`) =>
  selectActors(db, role).where('a.id', '=', id).where(scope).executeTakeFirst();

/** The actor's row locked for the rest of the transaction (state changes, deletes). */
export const lockActor = (db: Kysely<Database>, role: ActorRole, id: number) =>
  db
    .selectFrom('actors')
    .select(['id', 'user_id', 'organization_id', 'is_active', 'email', 'phone'])
    .where('id', '=', id)
    .where('actor_role', '=', role)
    .forUpdate()
    .executeTakeFirst();

export async function emailTaken(db: Kysely<Database>, role: ActorRole, email: string, exceptId?: number): Promise<boolean> {
  let query = db
    .selectFrom('actors')
    .select('id')
    .where('actor_role', '=', role)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase());
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

export const findOrganization = (db: Kysely<Database>, id: number) =>
  db.selectFrom('organizations').select(['id', 'is_active']).where('id', '=', id).executeTakeFirst();

/** The account to link, with its level and current actor. */
export const findAccount = (db: Kysely<Database>, id: number) =>
  db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .select(['u.id', 'u.actor_id', 'r.access_level'])
    .where('u.id', '=', id)
    .forUpdate('u')
    .executeTakeFirst();

export const accountHasActor = async (db: Kysely<Database>, userId: number) =>
  (await db.selectFrom('actors').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst()) !== undefined;

export type ActorValues = Omit<NewActor, 'actor_role'>;

export async function insertActor(db: Kysely<Database>, role: ActorRole, values: ActorValues): Promise<number> {
  const row = await db
    .insertInto('actors')
    .values({ actor_role: role, ...values })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (values.user_id != null) {
    await db.updateTable('users').set({ actor_id: row.id, updated_at: new Date() }).where('id', '=', values.user_id).execute();
  }
  return row.id;
}

export async function updateActor(db: Kysely<Database>, id: number, values: ActorUpdate): Promise<void> {
  await db
    .updateTable('actors')
    .set(Object.assign({}, values, { updated_at: new Date() }))
    .where('id', '=', id)
    .execute();
}

/** Sets the actor's state and its account's (they share one); rows already in that state are left untouched. */
export async function setActorState(db: Kysely<Database>, id: number, userId: number | null, active: boolean): Promise<void> {
  const now = new Date();
  await db
    .updateTable('actors')
    .set({ is_active: active, updated_at: now })
    .where('id', '=', id)
    .where('is_active', '<>', active)
    .execute();
  if (userId !== null) {
    await db
      .updateTable('users')
      .set({ is_active: active, updated_at: now })
      .where('id', '=', userId)
      .where('is_active', '<>', active)
      .execute();
  }
}

/** What still refers to the actor: its account, transports and complaints. */
export async function actorUsage(db: Kysely<Database>, id: number): Promise<number> {
  const row = await db
    .selectFrom('actors as a')
    .where('a.id', '=', id)
    .select((eb) => [
      eb
        .selectFrom('users as u')
        .where((w) => w.or([w('u.actor_id', '=', id), w('u.id', '=', w.ref('a.user_id'))]))
        .select(eb.fn.countAll<number>().as('n'))
        .as('accounts'),
      eb.selectFrom('transports as t').where('t.customer_id', '=', id).select(eb.fn.countAll<number>().as('n')).as('transports'),
      eb.selectFrom('complaints as c').where('c.customer_id', '=', id).select(eb.fn.countAll<number>().as('n')).as('complaints'),
    ])
    .executeTakeFirst();
  return row ? Number(row.accounts) + Number(row.transports) + Number(row.complaints) : 0;
}

export const deleteActorRow = (db: Kysely<Database>, id: number) => db.deleteFrom('actors').where('id', '=', id).execute();
