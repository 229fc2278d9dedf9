import type { components, operations } from '@transport-ops/contract';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { queryShape } from '../../lib/query-shape.js';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { CategoriesTable, CategoryScope, Database } from '../../db/schema.js';
import type { Req } from '../../http/handlers.js';
import { containing } from '../../lib/text.js';
import { iso } from '../../lib/time.js';

type Category = components['schemas']['Category'];
type Db = Kysely<Database>;

export const DEFAULT_COLOR = '#607D8B';
export const DEFAULT_ICON = 'folder';

/**
 * Records of every module pointing at the category (they are all of its scope when the modules obey
 * the scope). Forum topics come from the per-category counters the database keeps (migrations 0007 and 0016).
 */
const usageCount = sql<number>`(
  coalesce((select sum(f.topics) from forum_category_counts f where f.category_id = c.id), 0)
  + (select count(*) from announcements a where a.category_id = c.id)
  + (select count(*) from tutorials tu where tu.category_id = c.id)
)::int`;

type CategoryRow = Selectable<CategoriesTable> & { usage_count: number };

const selectCategories = (db: Db) => db.selectFrom('categories as c').selectAll('c').select(usageCount.as('usage_count'));

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

const SORT_COLUMNS = { name: 'c.name', createdAt: 'c.created_at', usageCount: 'usage_count' } as const;

type ListQuery = Req<'listConfigCategories'>['query'];
/** The query parameters of the list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listConfigCategories']['parameters']['query']>;

/**
 * Each filter of the category list, declared once (lib/filter-spec.ts). Typed from the contract: a query
 * parameter of `listConfigCategories` with no entry here (and not a paging one) is a type error. The order
 * is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof selectCategories>>> = {
  scope: { bind: same, where: (eb, v) => eb('c.scope', '=', v as CategoryScope), columns: ['c.scope'] },
  isActive: { bind: same, where: (eb, v) => eb('c.is_active', '=', v as boolean), columns: ['c.is_active'] },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('c.name', 'ilike', v as string), eb('c.description', 'ilike', v as string)]),
    columns: ['c.name', 'c.description'],
    text: true,
  },
};
const FILTER = filters(FILTERS);

/** The list as a query shape (lib/query-shape.ts): compiled once per combination of filters and order. */
const categoryList = queryShape(
  { values: FILTER.values, structure: ['sortBy', 'sortOrder', ...FILTER.structure] },
  (db, p: BoundFilters<ListParameters> & { sortBy: NonNullable<ListQuery['sortBy']>; sortOrder: ListQuery['sortOrder'] }) => {
    const direction = p.sortOrder === 'ASC' ? 'asc' : 'desc';
    return FILTER.apply(selectCategories(db), p).orderBy(sql.ref(SORT_COLUMNS[p.sortBy]), direction).orderBy('c.id', direction);
  },
);

export function listCategories(_db: Db, q: ListQuery) {
  return categoryList.with(FILTER.bind(q, { sortBy: q.sortBy ?? 'createdAt', sortOrder: q.sortOrder }));
}

export async function findCategory(db: Db, id: number): Promise<Category | undefined> {
  const row = await selectCategories(db).where('c.id', '=', id).executeTakeFirst();
  return row && toCategory(row);
}

export async function categoryUsage(db: Db, id: number): Promise<number> {
  const row = await db.selectFrom('categories as c').select(usageCount.as('usage_count')).where('c.id', '=', id).executeTakeFirst();
  return Number(row?.usage_count ?? 0);
}
