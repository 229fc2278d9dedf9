import type { operations } from '@transport-ops/contract';
import { type Kysely, sql, type Transaction } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { AnnouncementStatus, AnnouncementUpdate, Database, NewAnnouncement, Priority } from '../../db/schema.js';
import { fetchIdPage } from '../../lib/id-paging.js';
import { queryShape } from '../../lib/query-shape.js';
import { containing } from '../../lib/text.js';
import { loadAnnouncements } from './repository.js';
import type { Defaulted, Query } from '../../http/handlers.js';

export type AdminListQuery = Defaulted<Query<'listAdminAnnouncements'>, 'page' | 'limit' | 'sortBy' | 'sortOrder'>;

const SORT_COLUMNS = {
  createdAt: sql`a.created_at`,
  updatedAt: sql`a.updated_at`,
  publishedAt: sql`a.published_at`,
  expiresAt: sql`a.expires_at`,
  title: sql`lower(a.title)`,
  priority: sql`case a.priority when 'HIGH' then 3 when 'MEDIUM' then 2 else 1 end`,
  viewsCount: sql`a.views_count`,
  likesCount: sql`a.likes_count`,
} as const;

/** The condition of a reported status (`EXPIRED` is a published announcement past its expiry). */
function hasReportedStatus(status: AnnouncementStatus, now: Date) {
  switch (status) {
    case 'PUBLISHED':
      return sql<boolean>`(a.status = 'PUBLISHED' and (a.expires_at is null or a.expires_at > ${now}))`;
    case 'EXPIRED':
      return sql<boolean>`(a.status = 'EXPIRED' or (a.status = 'PUBLISHED' and a.expires_at <= ${now}))`;
    default:
      return sql<boolean>`a.status = ${status}`;
  }
}

/** The query parameters of the administrators' list, as the contract declares them. */
export type AdminListParameters = NonNullable<operations['listAdminAnnouncements']['parameters']['query']>;

const announcementsFrom = (db: Kysely<Database>) => db.selectFrom('announcements as a');
type Where = WhereOf<ReturnType<typeof announcementsFrom>>;

/**
 * Each filter of the administrators' list, declared once (lib/filter-spec.ts), applied by the
 * query shape to the page and its count. Typed from the contract: a query parameter of
 * `listAdminAnnouncements` with no entry here (and not a paging one) is a type error. The order
 * is the order of the conditions in the statement.
 */
export const ADMIN_FILTERS: FilterSpecs<AdminListParameters, Where> = {
  // The reported status depends on the instant (`now`, bound) and differs in shape by value.
  status: {
    bind: same,
    where: (_eb, v, p) => hasReportedStatus(v as AnnouncementStatus, p.now as Date),
    columns: ['a.status', 'a.expires_at'],
    structure: true,
  },
  priority: { bind: same, where: (eb, v) => eb('a.priority', '=', v as Priority), columns: ['a.priority'] },
  categoryId: { bind: same, where: (eb, v) => eb('a.category_id', '=', v as number), columns: ['a.category_id'] },
  authorId: { bind: same, where: (eb, v) => eb('a.author_id', '=', v as number), columns: ['a.author_id'] },
  search: {
    bind: containing,
    // The joined lower-cased texts (migration 0020) match whenever one of the ILIKEs does: a plain
    // LIKE on them first, the exact per-field test only on the rows it lets through.
    where: (eb, v) =>
      eb.and([
        eb('a.search_text', 'like', sql<string>`lower(${v as string})`),
        eb.or([eb('a.title', 'ilike', v as string), eb('a.summary', 'ilike', v as string), eb('a.content', 'ilike', v as string)]),
      ]),
    columns: ['a.search_text', 'a.title', 'a.summary', 'a.content'],
    text: true,
  },
  startDate: { bind: (v) => new Date(v), where: (eb, v) => eb('a.created_at', '>=', v as Date), columns: ['a.created_at'] },
  endDate: { bind: (v) => new Date(v), where: (eb, v) => eb('a.created_at', '<=', v as Date), columns: ['a.created_at'] },
};
const ADMIN_FILTER = filters(ADMIN_FILTERS);

type AdminListParams = BoundFilters<AdminListParameters> & {
  now: Date;
  sortBy: AdminListQuery['sortBy'];
  direction: 'asc' | 'desc';
};

/** The administration list's base table, filtered and ordered (a query shape: compiled once per combination). */
const adminList = queryShape(
  { values: ['now', ...ADMIN_FILTER.values], structure: ['sortBy', 'direction', ...ADMIN_FILTER.structure] },
  (db, p: AdminListParams) => {
    const query = ADMIN_FILTER.apply(announcementsFrom(db), p);
    const direction = p.direction === 'asc' ? sql`asc` : sql`desc`;
    return query.orderBy(sql`${SORT_COLUMNS[p.sortBy]} ${direction} nulls last`).orderBy('a.id', 'desc');
  },
);

/** One page of every announcement: ids from the filtered base table, then their rows; the total on the base table. */
export function listAll(db: Kysely<Database>, now: Date, q: AdminListQuery) {
  const base = adminList.with(ADMIN_FILTER.bind(q, { now, sortBy: q.sortBy, direction: q.sortOrder === 'ASC' ? 'asc' : 'desc' } as const));
  return fetchIdPage(db, base, {
    id: 'a.id',
    page: q.page,
    limit: q.limit,
    load: (ids) => loadAnnouncements(db, ids),
    idOf: (row) => row.id,
  });
}

/** True when an active category of scope ANNOUNCEMENT has this id. */
export async function announcementCategoryExists(db: Kysely<Database>, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('categories')
    .select('id')
    .where('id', '=', id)
    .where('scope', '=', 'ANNOUNCEMENT')
    .where('is_active', '=', true)
    .executeTakeFirst();
  return row !== undefined;
}

/** The ids among `ids` that are not active tags. */
export async function missingTags(db: Kysely<Database>, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom('tags').select('id').where('id', 'in', ids).where('is_active', '=', true).execute();
  const present = new Set(found.map((r) => r.id));
  return ids.filter((id) => !present.has(id));
}

/** The codes among `codes` that no role has. */
export async function unknownRoleCodes(db: Kysely<Database>, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const found = new Set((await db.selectFrom('roles').select('code').where('code', 'in', codes).execute()).map((r) => r.code));
  return codes.filter((c) => !found.has(c));
}

/** The codes among `codes` that no country has. */
export async function unknownCountryCodes(db: Kysely<Database>, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const found = new Set((await db.selectFrom('countries').select('code').where('code', 'in', codes).execute()).map((r) => r.code));
  return codes.filter((c) => !found.has(c));
}

export async function insertAnnouncement(trx: Transaction<Database>, values: NewAnnouncement, tagIds: number[]): Promise<number> {
  const row = await trx.insertInto('announcements').values(values).returning('id').executeTakeFirstOrThrow();
  await replaceTags(trx, row.id, tagIds);
  return row.id;
}

/** Changes the given fields; false when no announcement has this id. */
export async function updateAnnouncement(
  trx: Transaction<Database>,
  id: number,
  values: AnnouncementUpdate,
  tagIds: number[] | undefined,
): Promise<boolean> {
  const row = await trx.updateTable('announcements').set(values).where('id', '=', id).returning('id').executeTakeFirst();
  if (!row) return false;
  if (tagIds !== undefined) {
    await trx.deleteFrom('announcement_tags').where('announcement_id', '=', id).execute();
    await replaceTags(trx, id, tagIds);
  }
  return true;
}

async function replaceTags(trx: Transaction<Database>, id: number, tagIds: number[]): Promise<void> {
  if (tagIds.length === 0) return;
  await trx
    .insertInto('announcement_tags')
    .values(tagIds.map((tagId) => ({ announcement_id: id, tag_id: tagId })))
    .execute();
}

/** Deletes an announcement; read marks, likes and tag links go with it (ON DELETE CASCADE). */
export async function deleteAnnouncement(db: Kysely<Database>, id: number): Promise<boolean> {
  const row = await db.deleteFrom('announcements').where('id', '=', id).returning('id').executeTakeFirst();
  return row !== undefined;
}

/**
 * DRAFT or ARCHIVED, unexpired → PUBLISHED with a new publication time. The guard is in the WHERE,
 * so two concurrent moves cannot both apply; false when it did not match.
 */
export async function publish(db: Kysely<Database>, id: number, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('announcements')
    .set({ status: 'PUBLISHED', published_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['DRAFT', 'ARCHIVED'])
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** DRAFT, PUBLISHED (expired or not) → ARCHIVED; false when it did not match. */
export async function archive(db: Kysely<Database>, id: number, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('announcements')
    .set({ status: 'ARCHIVED', updated_at: now })
    .where('id', '=', id)
    .where('status', '<>', 'ARCHIVED')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export function findState(db: Kysely<Database>, id: number) {
  return db.selectFrom('announcements').select(['id', 'status', 'expires_at']).where('id', '=', id).executeTakeFirst();
}
