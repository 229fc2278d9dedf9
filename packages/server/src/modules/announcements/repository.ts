import type { operations } from '@transport-ops/contract';
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { queryShape } from '../../lib/query-shape.js';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Database, Priority } from '../../db/schema.js';
import { fetchIdPage } from '../../lib/id-paging.js';
import { fetchPage } from '../../lib/paging.js';
import type { AuthContext } from '../../lib/identity.js';
import { containing } from '../../lib/text.js';

/** Who an answer is for: what targeting compares with (the caller's role code and country code). */
export interface Audience {
  role: string | null;
  country: string | null;
}

const audienceCodes = queryShape({ values: ['roleId', 'countryId'] }, (db, p: { roleId: number; countryId: number }) =>
  db.selectNoFrom((eb) => [
    eb.selectFrom('roles').select('code').where('id', '=', p.roleId).as('role'),
    eb.selectFrom('countries').select('code').where('id', '=', p.countryId).as('country'),
  ]),
);

export async function audienceOf(db: Kysely<Database>, auth: AuthContext): Promise<Audience> {
  const row = await audienceCodes.executeTakeFirst(db, { roleId: auth.roleId, countryId: auth.countryId ?? 0 });
  if (!row) throw new Error('no row from a select without FROM');
  return { role: row.role ?? null, country: row.country ?? null };
}

/** Targeted at the audience (on the alias `a`): global, or its role code, or its country code. */
export function targetedAt(audience: Audience): Expression<SqlBool> {
  const parts = [sql<SqlBool>`a.is_global`];
  if (audience.role !== null) parts.push(sql<SqlBool>`${audience.role} = any(a.target_user_types)`);
  if (audience.country !== null) parts.push(sql<SqlBool>`${audience.country} = any(a.target_regions)`);
  return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
}

/** Published, unexpired at `now` (on the alias `a`). */
export function live(now: Date): Expression<SqlBool> {
  return sql<SqlBool>`(a.status = 'PUBLISHED' and (a.expires_at is null or a.expires_at > ${now}))`;
}

export function visibleTo(audience: Audience, now: Date): Expression<SqlBool> {
  return sql<SqlBool>`(${live(now)} and ${targetedAt(audience)})`;
}

/** Every field of an announcement but its content and attachments, with category, author and tags. */
export function selectAnnouncements(db: Kysely<Database>) {
  return db
    .selectFrom('announcements as a')
    .leftJoin('categories as c', 'c.id', 'a.category_id')
    .innerJoin('users as u', 'u.id', 'a.author_id')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .leftJoin('actors as ac', 'ac.id', 'u.actor_id')
    .select((eb) => [
      'a.id',
      'a.public_id',
      'a.title',
      'a.summary',
      'a.status',
      'a.priority',
      'a.featured_image',
      'a.target_user_types',
      'a.target_regions',
      'a.is_global',
      'a.views_count',
      'a.likes_count',
      'a.published_at',
      'a.expires_at',
      'a.created_at',
      'a.updated_at',
      'a.category_id',
      'c.name as category_name',
      'c.description as category_description',
      'c.color as category_color',
      'c.icon as category_icon',
      'u.id as author_id',
      'u.username as author_username',
      'ac.first_name as author_first_name',
      'ac.last_name as author_last_name',
      'r.name as author_role',
      'u.avatar_updated_at as author_avatar_at',
      jsonArrayFrom(
        eb
          .selectFrom('announcement_tags as at')
          .innerJoin('tags as t', 't.id', 'at.tag_id')
          .select(['t.id', 't.name', 't.color'])
          .whereRef('at.announcement_id', '=', 'a.id')
          .orderBy('t.name'),
      ).as('tags'),
    ]);
}
export type AnnouncementRow = Awaited<ReturnType<ReturnType<typeof selectAnnouncements>['executeTakeFirstOrThrow']>>;

/** One announcement in any status, with every field. */
export function findAnnouncement(db: Kysely<Database>, id: number) {
  return selectAnnouncements(db).select(['a.content', 'a.attachments']).where('a.id', '=', id).executeTakeFirst();
}
export type AnnouncementDetailRow = NonNullable<Awaited<ReturnType<typeof findAnnouncement>>>;

/** What the visibility checks read. */
export function findVisibility(db: Kysely<Database>, id: number) {
  return db
    .selectFrom('announcements')
    .select(['id', 'status', 'expires_at', 'is_global', 'target_user_types', 'target_regions'])
    .where('id', '=', id)
    .executeTakeFirst();
}
export type VisibilityRow = NonNullable<Awaited<ReturnType<typeof findVisibility>>>;

/** Announcements by id, with category, author and tags (any order; a query shape: compiled once). */
const announcementsById = queryShape({ values: ['ids'] }, (db, p: { ids: number[] }) =>
  selectAnnouncements(db).where('a.id', '=', sql<number>`any(${p.ids})`),
);

/** The rows of the announcements `ids` (any order): the second step of the id-first lists. */
export const loadAnnouncements = (db: Kysely<Database>, ids: number[]) => announcementsById.execute(db, { ids });

/** The query parameters of the user-side list, as the contract declares them. */
export type UserListParameters = NonNullable<operations['listAnnouncements']['parameters']['query']>;

const announcementsFrom = (db: Kysely<Database>) => db.selectFrom('announcements as a');
type Where = WhereOf<ReturnType<typeof announcementsFrom>>;

/**
 * Each filter of the user-side list, declared once (lib/filter-spec.ts), applied to the page and
 * its count. Typed from the contract: a query parameter of `listAnnouncements` with no entry here
 * (and not a paging one) is a type error. The order is the order of the conditions.
 */
export const USER_FILTERS: FilterSpecs<UserListParameters, Where> = {
  categoryId: { bind: same, where: (eb, v) => eb('a.category_id', '=', v as number), columns: ['a.category_id'] },
  priority: { bind: same, where: (eb, v) => eb('a.priority', '=', v as Priority), columns: ['a.priority'] },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('a.title', 'ilike', v as string), eb('a.content', 'ilike', v as string)]),
    columns: ['a.title', 'a.content'],
    text: true,
  },
  startDate: { bind: (v) => new Date(v), where: (eb, v) => eb('a.published_at', '>=', v as Date), columns: ['a.published_at'] },
  endDate: { bind: (v) => new Date(v), where: (eb, v) => eb('a.published_at', '<=', v as Date), columns: ['a.published_at'] },
  status: { implied: 'users see published announcements only (`visibleTo`), the one status the parameter accepts' },
};
const USER_FILTER = filters(USER_FILTERS);

/** The user-side list's filters as its statement binds them: also what its cache key is made of. */
export type UserListFilters = BoundFilters<UserListParameters>;
export const userListFilters = (q: UserListParameters): UserListFilters => USER_FILTER.bind(q, {});

/** One page of the announcements visible to `audience`: ids from the filtered base table, then their rows; the total on the base table. */
export function listVisible(
  db: Kysely<Database>,
  audience: Audience,
  now: Date,
  f: UserListFilters,
  page: { page: number; limit: number },
) {
  const base = USER_FILTER.apply(announcementsFrom(db).where(visibleTo(audience, now)), f);
  return fetchIdPage(db, base.orderBy('a.published_at', 'desc').orderBy('a.id', 'desc'), {
    id: 'a.id',
    page: page.page,
    limit: page.limit,
    load: (ids) => loadAnnouncements(db, ids),
    idOf: (row) => row.id,
  });
}

const statesOf = queryShape({ values: ['userId', 'ids'] }, (db, p: { userId: number; ids: number[] }) =>
  db
    .selectFrom('announcements as a')
    .where('a.id', '=', sql<number>`any(${p.ids})`)
    .select((eb) => [
      'a.id',
      eb
        .exists(
          eb
            .selectFrom('announcement_reads as ar')
            .select('ar.user_id')
            .whereRef('ar.announcement_id', '=', 'a.id')
            .where('ar.user_id', '=', p.userId),
        )
        .as('is_read'),
      eb
        .exists(
          eb
            .selectFrom('announcement_likes as al')
            .select('al.user_id')
            .whereRef('al.announcement_id', '=', 'a.id')
            .where('al.user_id', '=', p.userId),
        )
        .as('liked'),
    ]),
);

/** The caller's read and like state of some announcements. */
export async function userStates(db: Kysely<Database>, userId: number, ids: number[]) {
  const states = new Map<number, { isRead: boolean; userLiked: boolean }>();
  if (ids.length === 0) return states;
  const rows = await statesOf.execute(db, { userId, ids });
  for (const row of rows) states.set(row.id, { isRead: Boolean(row.is_read), userLiked: Boolean(row.liked) });
  return states;
}

/** The earliest future expiry of a published announcement: cached answers must not outlive it. */
export async function nextExpiry(db: Kysely<Database>, now: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('announcements')
    .select((eb) => eb.fn.min('expires_at').as('next'))
    .where('status', '=', 'PUBLISHED')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.next ? new Date(row.next) : null;
}

/** Active announcement categories with the number of announcements the audience can see in each. */
export function listCategories(db: Kysely<Database>, audience: Audience, now: Date) {
  return db
    .selectFrom('categories as c')
    .select((eb) => [
      'c.id',
      'c.name',
      'c.description',
      'c.color',
      'c.icon',
      'c.is_active',
      eb
        .selectFrom('announcements as a')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('a.category_id', '=', 'c.id')
        .where(visibleTo(audience, now))
        .as('announcements_count'),
    ])
    .where('c.scope', '=', 'ANNOUNCEMENT')
    .where('c.is_active', '=', true)
    .orderBy('c.name')
    .orderBy('c.id')
    .execute();
}
export type CategoryRow = Awaited<ReturnType<typeof listCategories>>[number];

const importantFrom = (db: Kysely<Database>) =>
  db
    .selectFrom('announcements as a')
    .leftJoin('categories as c', 'c.id', 'a.category_id')
    .select(['a.id', 'a.title', 'a.summary', 'a.priority', 'a.published_at', 'a.expires_at', 'a.created_at'])
    .select(['c.name as category_name', 'c.color as category_color', 'c.icon as category_icon']);

/** The query parameters of the important list, as the contract declares them. */
export type ImportantListParameters = NonNullable<operations['listImportantAnnouncements']['parameters']['query']>;

/**
 * Each filter of the important list, declared once (lib/filter-spec.ts). Typed from the contract: a
 * query parameter of `listImportantAnnouncements` with no entry here is a type error.
 */
export const IMPORTANT_FILTERS: FilterSpecs<ImportantListParameters, WhereOf<ReturnType<typeof importantFrom>>> = {
  priority: { bind: same, where: (eb, v) => eb('a.priority', '=', v as Priority), columns: ['a.priority'] },
  // Read or unread by the caller (`userId`): two conditions of different shapes.
  unread: {
    bind: same,
    where: (eb, v, p) => {
      const read = eb.exists(
        eb
          .selectFrom('announcement_reads as ar')
          .select('ar.user_id')
          .whereRef('ar.announcement_id', '=', 'a.id')
          .where('ar.user_id', '=', p.userId as number),
      );
      return v ? eb.not(read) : read;
    },
    columns: ['a.id'],
    structure: true,
  },
};
const IMPORTANT_FILTER = filters(IMPORTANT_FILTERS);

/** The visible announcements of one priority, read or unread by the caller, newest first: at most 50 and the total. */
export function listImportant(db: Kysely<Database>, audience: Audience, userId: number, now: Date, f: ImportantListParameters) {
  const query = IMPORTANT_FILTER.apply(importantFrom(db).where(visibleTo(audience, now)), IMPORTANT_FILTER.bind(f, { userId }));
  return fetchPage(query.orderBy('a.published_at', 'desc').orderBy('a.id', 'desc'), 1, 50);
}
export type ImportantRow = Awaited<ReturnType<typeof listImportant>>['rows'][number];
