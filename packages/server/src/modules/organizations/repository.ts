import type { operations } from '@transport-ops/contract';
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { queryShape } from '../../lib/query-shape.js';
import type { Database, NewOrganization, OrganizationType, OrganizationUpdate } from '../../db/schema.js';
import { fetchPreparedIdPage } from '../../lib/id-paging.js';
import { organizationSubtree, type TeamScope, withinTeamScope } from '../../lib/scope.js';
import { containing } from '../../lib/text.js';
import type { Defaulted, Query } from '../../http/handlers.js';

export interface AncestorJson {
  id: number;
  name: string;
}

/**
 * The tree's order: every organization with its sort key (the names from the root down to itself)
 * and the ids along that path, built top-down from the roots by a recursive query. Only the keys:
 * the page's ids are read in this order, and only the page's rows are then built in full.
 */
function withTreeOrder(db: Kysely<Database>) {
  return db.withRecursive('org_tree(id, sort_path, id_path)', (qb) =>
    qb
      .selectFrom('organizations as o')
      .where('o.parent_id', 'is', null)
      .select(['o.id', sql<string[]>`array[o.name]`.as('sort_path'), sql<number[]>`array[o.id]`.as('id_path')])
      .unionAll((eb) =>
        eb
          .selectFrom('organizations as o')
          .innerJoin('org_tree as t', 't.id', 'o.parent_id')
          .select(['o.id', sql<string[]>`t.sort_path || o.name`.as('sort_path'), sql<number[]>`t.id_path || o.id`.as('id_path')]),
      ),
  );
}

/**
 * An organization's ancestors, root first: a walk up from its parent, as deep as the tree and
 * independent of how many organizations there are.
 */
const ancestorsOf = (parentColumn: string) => sql<AncestorJson[]>`(
  with recursive up(id, name, parent_id, depth) as (
    select p.id, p.name, p.parent_id, 1 from organizations p where p.id = ${sql.ref(parentColumn)}
    union all
    select p.id, p.name, p.parent_id, up.depth + 1 from organizations p join up on p.id = up.parent_id
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', up.id, 'name', up.name) order by up.depth desc), '[]'::jsonb) from up)`;

export function selectOrganizations(db: Kysely<Database>) {
  return db
    .selectFrom('organizations as o')
    .leftJoin('organizations as p', 'p.id', 'o.parent_id')
    .leftJoin('users as m', 'm.id', 'o.manager_user_id')
    .leftJoin('countries as c', 'c.id', 'o.country_id')
    .select((eb) => [
      'o.id',
      'o.public_id',
      'o.name',
      'o.code',
      'o.type',
      'o.parent_id',
      'p.name as parent_name',
      'o.manager_user_id',
      'm.username as manager_username',
      'o.country_id',
      'c.name as country_name',
      'o.is_active',
      'o.created_at',
      'o.updated_at',
      ancestorsOf('o.parent_id').as('ancestors'),
      eb.selectFrom('users as u').whereRef('u.organization_id', '=', 'o.id').select(eb.fn.countAll<number>().as('n')).as('members_count'),
      eb
        .selectFrom('organizations as ch')
        .whereRef('ch.parent_id', '=', 'o.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('children_count'),
    ]);
}
export type OrganizationRow = Awaited<ReturnType<ReturnType<typeof selectOrganizations>['executeTakeFirstOrThrow']>>;

export type OrganizationFilters = Defaulted<Query<'listOrganizations'>, 'page' | 'limit'>;

/** The query parameters of the list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listOrganizations']['parameters']['query']>;

const treeFrom = (db: Kysely<Database>) =>
  withTreeOrder(db).selectFrom('org_tree as t').innerJoin('organizations as o', 'o.id', 't.id').select('o.id');

/**
 * Each filter of the organization list, declared once (lib/filter-spec.ts), applied by the base to
 * the page and its count. Typed from the contract: a query parameter of `listOrganizations` with
 * no entry here (and not a paging one) is a type error. The order is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof treeFrom>>> = {
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('o.name', 'ilike', v as string), eb('o.code', 'ilike', v as string)]),
    columns: ['o.name', 'o.code'],
    text: true,
  },
  parentId: { bind: same, where: (eb, v) => eb('o.parent_id', '=', v as number), columns: ['o.parent_id'] },
  type: { bind: same, where: (eb, v) => eb('o.type', '=', v as OrganizationType), columns: ['o.type'] },
  isActive: { bind: same, where: (eb, v) => eb('o.is_active', '=', v as boolean), columns: ['o.is_active'] },
};
const FILTER = filters(FILTERS);

/**
 * The list's base as a query shape (lib/query-shape.ts), compiled once per team scope and
 * combination of filters: the filtered organizations in the tree's order, keys only.
 */
const organizationBase = queryShape(
  { values: ['teamId', ...FILTER.values], structure: ['scope', ...FILTER.structure] },
  (db, p: TeamScope & BoundFilters<ListParameters>) =>
    FILTER.apply(treeFrom(db).where(withinTeamScope(p, 'o.id')), p)
      // Depth-first: a parent's names prefix its children's, so it sorts right before them.
      .orderBy(sql`t.sort_path`)
      .orderBy(sql`t.id_path`),
);

/** Organizations by id, with their references, ancestors and counts (any order). */
const organizationsById = queryShape({ values: ['ids'] }, (db, p: { ids: number[] }) =>
  selectOrganizations(db).where('o.id', '=', sql<number>`any(${p.ids})`),
);

/**
 * The organizations of `team` that pass the filters, depth-first: the page's ids in the tree's
 * order, then their full rows (lib/id-paging.ts); the total is capped like every list's.
 */
export function listOrganizations(db: Kysely<Database>, team: TeamScope, f: OrganizationFilters) {
  const base = organizationBase.with(FILTER.bind(f, Object.assign({}, team)));
  return fetchPreparedIdPage(db, base, 'o.id', organizationsById, f);
}

export const findOrganization = (db: Kysely<Database>, id: number, scope: Expression<SqlBool> = sql<SqlBool>`true`) =>
  selectOrganizations(db).where('o.id', '=', id).where(scope).executeTakeFirst();

export const childrenOf = (db: Kysely<Database>, id: number) =>
  db.selectFrom('organizations').select(['id', 'name', 'type']).where('parent_id', '=', id).orderBy('name').orderBy('id').execute();

/** The organization's row, locked until the end of the transaction. */
export const lockOrganization = (db: Kysely<Database>, id: number) =>
  db
    .selectFrom('organizations')
    .select(['id', 'parent_id', 'manager_user_id', 'country_id'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

/** A referenced row, kept from being deleted until the end of the transaction. */
export const referencedOrganization = (db: Kysely<Database>, id: number) =>
  db.selectFrom('organizations').select(['id']).where('id', '=', id).forKeyShare().executeTakeFirst();
export const referencedUser = (db: Kysely<Database>, id: number) =>
  db.selectFrom('users').select(['id', 'is_active']).where('id', '=', id).forKeyShare().executeTakeFirst();
export const referencedCountry = (db: Kysely<Database>, id: number) =>
  db.selectFrom('countries').select(['id', 'is_active']).where('id', '=', id).forKeyShare().executeTakeFirst();

/**
 * Moves of the tree are serialized: two concurrent moves (A under B, B under A) would each pass
 * their own cycle check against the tree before the other's change.
 */
export async function lockTree(db: Kysely<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('organization-tree'))`.execute(db);
}

/** True when `candidate` is the organization itself or one of its descendants. */
export async function isInSubtree(db: Kysely<Database>, organizationId: number, candidate: number): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`select ${candidate}::int in (${organizationSubtree(organizationId)}) as found`.execute(db);
  return rows[0]?.found === true;
}

export async function insertOrganization(db: Kysely<Database>, values: NewOrganization): Promise<number> {
  const row = await db.insertInto('organizations').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateOrganization(db: Kysely<Database>, id: number, values: OrganizationUpdate): Promise<void> {
  await db
    .updateTable('organizations')
    .set(Object.assign({}, values, { updated_at: new Date() }))
    .where('id', '=', id)
    .execute();
}

/** Children, member accounts and actors of the organization. */
export async function organizationUsage(db: Kysely<Database>, id: number): Promise<number> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('organizations').where('parent_id', '=', id).select(eb.fn.countAll<number>().as('n')).as('children'),
      eb.selectFrom('users').where('organization_id', '=', id).select(eb.fn.countAll<number>().as('n')).as('members'),
      eb.selectFrom('actors').where('organization_id', '=', id).select(eb.fn.countAll<number>().as('n')).as('actors'),
    ])
    .executeTakeFirstOrThrow();
  return Number(row.children) + Number(row.members) + Number(row.actors);
}

export const deleteOrganizationRow = (db: Kysely<Database>, id: number) => db.deleteFrom('organizations').where('id', '=', id).execute();
