import type { components, operations } from '@transport-ops/contract';
import { type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, TagsTable } from '../../db/schema.js';
import type { Req } from '../../http/handlers.js';
import { containing } from '../../lib/text.js';
import { iso } from '../../lib/time.js';
import { liveCount } from '../../lib/counters.js';

type Tag = components['schemas']['Tag'];
type Db = Kysely<Database>;

export const DEFAULT_COLOR = '#607D8B';

/** Forum topics (a counter the database keeps, migrations 0008 and 0016) + announcements + tutorials carrying the tag. */
const usageCount = sql<number>`(
  ${liveCount('tags.topics_count', 'g')}
  + (select count(*) from announcement_tags ant where ant.tag_id = g.id)
  + (select count(*) from tutorial_tags tt where tt.tag_id = g.id)
)::int`;

type TagRow = Selectable<TagsTable> & { usage_count: number };

const selectTags = (db: Db) => db.selectFrom('tags as g').selectAll('g').select(usageCount.as('usage_count'));

export function toTag(row: TagRow): Tag {
  return {
    id: row.id,
    name: row.name,
    color: row.color ?? DEFAULT_COLOR,
    isActive: row.is_active,
    usageCount: Number(row.usage_count),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const SORT_COLUMNS = { name: 'g.name', createdAt: 'g.created_at', usageCount: 'usage_count' } as const;

/** The query parameters of the list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listConfigTags']['parameters']['query']>;

/**
 * Each filter of the tag list, declared once (lib/filter-spec.ts). Typed from the contract: a query
 * parameter of `listConfigTags` with no entry here (and not a paging one) is a type error. The order
 * is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof selectTags>>> = {
  isActive: { bind: same, where: (eb, v) => eb('g.is_active', '=', v as boolean), columns: ['g.is_active'] },
  search: { bind: containing, where: (eb, v) => eb('g.name', 'ilike', v as string), columns: ['g.name'], text: true },
};
const FILTER = filters(FILTERS);

export function listTags(db: Db, q: Req<'listConfigTags'>['query']) {
  const direction = q.sortOrder === 'ASC' ? 'asc' : 'desc';
  return FILTER.apply(selectTags(db), FILTER.bind(q, {}))
    .orderBy(sql.ref(SORT_COLUMNS[q.sortBy ?? 'createdAt']), direction)
    .orderBy('g.id', direction);
}

export async function findTag(db: Db, id: number): Promise<Tag | undefined> {
  const row = await selectTags(db).where('g.id', '=', id).executeTakeFirst();
  return row && toTag(row);
}

export async function tagUsage(db: Db, id: number): Promise<number> {
  const row = await db.selectFrom('tags as g').select(usageCount.as('usage_count')).where('g.id', '=', id).executeTakeFirst();
  return Number(row?.usage_count ?? 0);
}
