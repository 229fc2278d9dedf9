import type { components } from '@transport-ops/contract';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { CategoriesTable, CategoryScope, Database } from '../../db/schema.js';
import { fetchPage } from '../../lib/paging.js';
import { iso } from '../../lib/time.js';
import { containing } from '../../lib/text.js';

type Category = components['schemas']['Category'];
type Db = Kysely<Database>;

export const DEFAULT_COLOR = '#607D8B';
export const DEFAULT_ICON = 'folder';

/** Constraints that make a category name taken (the case-insensitive index is requested, see the module report). */
const NAME_CONSTRAINTS = new Set(['categories_scope_name_key', 'categories_scope_lower_name_key']);
/** Foreign keys onto categories: a delete that loses the race with a new reference fails on one of them. */
export const CATEGORY_FKS = ['forum_topics_category_id_fkey', 'announcements_category_id_fkey', 'tutorials_category_id_fkey'];

export const isNameConstraint = (constraint: string | undefined) => constraint !== undefined && NAME_CONSTRAINTS.has(constraint);

/** Records of every module pointing at the category (they are all of its scope when the modules obey the scope). */
const usageCount = sql<number>`(
  (select count(*) from forum_topics t where t.category_id = c.id)
  + (select count(*) from announcements a where a.category_id = c.id)
  + (select count(*) from tutorials tu where tu.category_id = c.id)
)::int`;

type CategoryRow = Selectable<CategoriesTable> & { usage_count: number };

function selectCategories(db: Db) {
  return db.selectFrom('categories as c').selectAll('c').select(usageCount.as('usage_count'));
}

export function toCategory(row: CategoryRow): Category {
  return {
    id: row.id,
    scope: row.scope,
    name: row.name,
    description: row.description ?? '',
    color: row.color ?? DEFAULT_COLOR,
    icon: row.icon ?? DEFAULT_ICON,
    isActive: row.is_active,
    usageCount: Number(row.usage_count),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}


export interface CategoryFilters {
  page: number;
  limit: number;
  scope?: CategoryScope;
  isActive?: boolean;
  search?: string;
  sortBy: 'name' | 'createdAt' | 'usageCount';
  sortOrder: 'ASC' | 'DESC';
}

const SORT_COLUMNS = { name: 'c.name', createdAt: 'c.created_at', usageCount: 'usage_count' } as const;

export async function listCategories(db: Db, f: CategoryFilters) {
  let query = selectCategories(db);
  if (f.scope !== undefined) query = query.where('c.scope', '=', f.scope);
  if (f.isActive !== undefined) query = query.where('c.is_active', '=', f.isActive);
  if (f.search !== undefined) {
    const pattern = containing(f.search);
    query = query.where((eb) => eb.or([eb('c.name', 'ilike', pattern), eb('c.description', 'ilike', pattern)]));
  }
  const direction = f.sortOrder === 'ASC' ? 'asc' : 'desc';
  const { rows, total } = await fetchPage(
    query.orderBy(sql.ref(SORT_COLUMNS[f.sortBy]), direction).orderBy('c.id', direction),
    f.page,
    f.limit,
  );
  return { data: rows.map(toCategory), total };
}

export async function findCategory(db: Db, id: number): Promise<Category | undefined> {
  const row = await selectCategories(db).where('c.id', '=', id).executeTakeFirst();
  return row && toCategory(row);
}

/**
 * Serialises writers of one (scope, lower(name)) until the end of the transaction: the migration's
 * unique constraint is case-sensitive, the contract's rule is not.
 */
export async function lockName(trx: Db, scope: CategoryScope, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`categories:${scope}:${name.toLowerCase()}`}))`.execute(trx);
}

/** The id of another category of the scope with this name, compared case-insensitively. */
export async function nameTaken(trx: Db, scope: CategoryScope, name: string, exceptId?: number): Promise<boolean> {
  let query = trx
    .selectFrom('categories')
    .select('id')
    .where('scope', '=', scope)
    .where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export interface NewCategory {
  scope: CategoryScope;
  name: string;
  description: string;
  color: string;
  icon: string;
  isActive: boolean;
}

export async function insertCategory(trx: Db, c: NewCategory): Promise<number> {
  const row = await trx
    .insertInto('categories')
    .values({ scope: c.scope, name: c.name, description: c.description, color: c.color, icon: c.icon, is_active: c.isActive })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function scopeOf(trx: Db, id: number): Promise<CategoryScope | undefined> {
  const row = await trx.selectFrom('categories').select('scope').where('id', '=', id).executeTakeFirst();
  return row?.scope;
}

export interface CategoryChanges {
  name?: string;
  description?: string;
  color?: string;
  icon?: string;
  is_active?: boolean;
}

/** True when the category exists (and was updated). */
export async function updateCategory(trx: Db, id: number, changes: CategoryChanges): Promise<boolean> {
  const result = await trx
    .updateTable('categories')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function countUsage(db: Db, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('categories as c').select(usageCount.as('usage_count')).where('c.id', '=', id).executeTakeFirst();
  return row && Number(row.usage_count);
}

/** True when a row was deleted. */
export async function deleteCategory(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('categories').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
