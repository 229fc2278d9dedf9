import type { components } from '@transport-ops/contract';
import { queryShape } from '../../lib/query-shape.js';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { CategoriesTable, Database } from '../../db/schema.js';
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

/** The list as a query shape (lib/query-shape.ts): compiled once per combination of filters and order. */
const categoryList = queryShape(
  { values: ['scope', 'isActive', 'pattern'], structure: ['sortBy', 'sortOrder'] },
  (
    db,
    p: {
      scope: ListQuery['scope'];
      isActive: boolean | undefined;
      pattern: string | undefined;
      sortBy: NonNullable<ListQuery['sortBy']>;
      sortOrder: ListQuery['sortOrder'];
    },
  ) => {
    let query = selectCategories(db);
    if (p.scope !== undefined) query = query.where('c.scope', '=', p.scope);
    if (p.isActive !== undefined) query = query.where('c.is_active', '=', p.isActive);
    if (p.pattern !== undefined) {
      const pattern = p.pattern;
      query = query.where((eb) => eb.or([eb('c.name', 'ilike', pattern), eb('c.description', 'ilike', pattern)]));
    }
    const direction = p.sortOrder === 'ASC' ? 'asc' : 'desc';
    return query.orderBy(sql.ref(SORT_COLUMNS[p.sortBy]), direction).orderBy('c.id', direction);
  },
);

export function listCategories(_db: Db, q: ListQuery) {
  return categoryList.with({
    scope: q.scope,
    isActive: q.isActive,
    pattern: q.search === undefined ? undefined : containing(q.search),
    sortBy: q.sortBy ?? 'createdAt',
    sortOrder: q.sortOrder,
  });
}

export async function findCategory(db: Db, id: number): Promise<Category | undefined> {
  const row = await selectCategories(db).where('c.id', '=', id).executeTakeFirst();
  return row && toCategory(row);
}

export async function categoryUsage(db: Db, id: number): Promise<number> {
  const row = await db.selectFrom('categories as c').select(usageCount.as('usage_count')).where('c.id', '=', id).executeTakeFirst();
  return Number(row?.usage_count ?? 0);
}
