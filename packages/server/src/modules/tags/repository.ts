import type { components } from '@transport-ops/contract';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, TagsTable } from '../../db/schema.js';
import { fetchPage } from '../../lib/paging.js';
import { iso } from '../../lib/time.js';

type Tag = components['schemas']['Tag'];
type Db = Kysely<Database>;

export const DEFAULT_COLOR = '#607D8B';

/** Constraints that make a tag name taken (the case-insensitive index is requested, see the module report). */
const NAME_CONSTRAINTS = new Set(['tags_name_key', 'tags_lower_name_key']);
/** Foreign keys onto tags: a delete that loses the race with a new use fails on one of them. */
export const TAG_FKS = ['forum_topic_tags_tag_id_fkey', 'announcement_tags_tag_id_fkey', 'tutorial_tags_tag_id_fkey'];

export const isNameConstraint = (constraint: string | undefined) => constraint !== undefined && NAME_CONSTRAINTS.has(constraint);

/** Forum topics + announcements + tutorials carrying the tag. */
const usageCount = sql<number>`(
  (select count(*) from forum_topic_tags ft where ft.tag_id = g.id)
  + (select count(*) from announcement_tags ant where ant.tag_id = g.id)
  + (select count(*) from tutorial_tags tt where tt.tag_id = g.id)
)::int`;

type TagRow = Selectable<TagsTable> & { usage_count: number };

function selectTags(db: Db) {
  return db.selectFrom('tags as g').selectAll('g').select(usageCount.as('usage_count'));
}

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

/** `%` and `_` of the user's text match themselves. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface TagFilters {
  page: number;
  limit: number;
  isActive?: boolean;
  search?: string;
  sortBy: 'name' | 'createdAt' | 'usageCount';
  sortOrder: 'ASC' | 'DESC';
}

const SORT_COLUMNS = { name: 'g.name', createdAt: 'g.created_at', usageCount: 'usage_count' } as const;

export async function listTags(db: Db, f: TagFilters) {
  let query = selectTags(db);
  if (f.isActive !== undefined) query = query.where('g.is_active', '=', f.isActive);
  if (f.search !== undefined) query = query.where('g.name', 'ilike', likePattern(f.search));
  const direction = f.sortOrder === 'ASC' ? 'asc' : 'desc';
  const { rows, total } = await fetchPage(
    query.orderBy(sql.ref(SORT_COLUMNS[f.sortBy]), direction).orderBy('g.id', direction),
    f.page,
    f.limit,
  );
  return { data: rows.map(toTag), total };
}

export async function findTag(db: Db, id: number): Promise<Tag | undefined> {
  const row = await selectTags(db).where('g.id', '=', id).executeTakeFirst();
  return row && toTag(row);
}

/**
 * Serialises writers of one lower(name) until the end of the transaction: the migration's unique
 * constraint is case-sensitive, the contract's rule is not.
 */
export async function lockName(trx: Db, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`tags:${name.toLowerCase()}`}))`.execute(trx);
}

/** True when another tag has this name, compared case-insensitively. */
export async function nameTaken(trx: Db, name: string, exceptId?: number): Promise<boolean> {
  let query = trx.selectFrom('tags').select('id').where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertTag(trx: Db, t: { name: string; color: string; isActive: boolean }): Promise<number> {
  const row = await trx
    .insertInto('tags')
    .values({ name: t.name, color: t.color, is_active: t.isActive })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function tagExists(trx: Db, id: number): Promise<boolean> {
  return (await trx.selectFrom('tags').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** True when the tag exists (and was updated). */
export async function updateTag(trx: Db, id: number, changes: { name?: string; color?: string; is_active?: boolean }): Promise<boolean> {
  const result = await trx
    .updateTable('tags')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function countUsage(db: Db, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('tags as g').select(usageCount.as('usage_count')).where('g.id', '=', id).executeTakeFirst();
  return row && Number(row.usage_count);
}

/** True when a row was deleted. */
export async function deleteTag(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('tags').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
