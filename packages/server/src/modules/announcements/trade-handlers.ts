import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError, ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { pageMeta } from '../../lib/paging.js';
import { iso } from '../../lib/time.js';
import { caller } from '../../lib/identity.js';
import { announcementCache } from './cache.js';
import { addLike, markRead, recordView, removeLike } from './interaction-repository.js';
import { toCategory, toDetail, toImportant, toListItem, withReaderState } from './mappers.js';
import {
  type Audience,
  audienceOf,
  findAnnouncement,
  findVisibility,
  listCategories,
  listImportant,
  listVisible,
  nextExpiry,
  userListFilters,
  userStates,
} from './repository.js';
import { announcementExpired, announcementNotFound } from './rules.js';
import { assertVisible } from './visibility.js';

// Lifetimes stated by the specification.
const LIST_TTL_MS = 10 * 60_000;
const DETAIL_TTL_MS = 30 * 60_000;
const CATEGORIES_TTL_MS = 60 * 60_000;

/** The state of an announcement the caller never opened nor liked. */
const UNREAD = { isRead: false, userLiked: false } as const;

const audienceKey = (a: Audience) => `${a.role ?? '~'}:${a.country ?? '~'}`;
// One-shot hash (no Hash object per request).
const digest = (value: unknown) => hash('sha1', JSON.stringify(value), 'base64url');

/** Lists and counts change when a published announcement expires: their entries must not outlive that moment. */
async function untilNextExpiry(db: Kysely<Database>, now: Date): Promise<number | undefined> {
  const next = await nextExpiry(db, now);
  return next === null ? undefined : next.getTime() - now.getTime();
}

export type TradeOperations =
  | 'listAnnouncements'
  | 'getAnnouncementById'
  | 'markAnnouncementRead'
  | 'likeAnnouncement'
  | 'listAnnouncementCategories'
  | 'listImportantAnnouncements';

export const tradeAnnouncementHandlers: ModuleHandlers<TradeOperations> = {
  async listAnnouncements(req) {
    const auth = caller(req);
    const { db } = req.server;
    const q = req.query;
    if (q.startDate !== undefined && q.endDate !== undefined && new Date(q.endDate) < new Date(q.startDate)) {
      throw new ListError(400, 'Validation failed', ['querystring/endDate must not be before startDate']);
    }
    // The filters as the statement binds them (dates as instants, the search as its pattern), in
    // the spec's order: equal queries give equal cache keys.
    const filters = userListFilters(q);
    const query = { page: q.page ?? 1, limit: q.limit ?? 10 };
    const audience = await audienceOf(db, auth);
    const now = new Date();
    const key = `list:${audienceKey(audience)}:${digest([query, filters])}`;
    const page = await announcementCache(req.server).remember(key, LIST_TTL_MS, async () => {
      const { rows, total, exact } = await listVisible(db, audience, now, filters, query);
      return {
        value: { data: rows.map(toListItem), meta: Object.assign({}, pageMeta(total, query.page, query.limit), { total_is_exact: exact }) },
        ttlMs: await untilNextExpiry(db, now),
      };
    });
    const states = await userStates(
      db,
      auth.userId,
      page.data.map((a) => a.id),
    );
    return {
      message: 'Announcements retrieved successfully',
      result: {
        data: page.data.map((a) => withReaderState(a, states.get(a.id) ?? UNREAD)),
        meta: page.meta,
      },
    };
  },

  async getAnnouncementById(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const audience = await audienceOf(db, auth);
    const now = new Date();
    const shared = await announcementCache(req.server).remember(`detail:${id}:${audienceKey(audience)}`, DETAIL_TTL_MS, async () => {
      const row = assertVisible(await findAnnouncement(db, id), id, audience, now);
      return { value: toDetail(row), ttlMs: row.expires_at === null ? undefined : new Date(row.expires_at).getTime() - now.getTime() };
    });
    // A cached detail was visible when cached, and every change since would have dropped it; only time can expire it.
    if (shared.expiresAt !== null && new Date(shared.expiresAt) <= now) throw announcementExpired(id, shared.expiresAt);
    const view = await recordView(db, id, auth.userId, now);
    if (!view) throw announcementNotFound(id);
    return {
      message: 'Announcement retrieved successfully',
      result: Object.assign({}, shared, {
        statistics: Object.assign({}, shared.statistics, { viewsCount: view.viewsCount, likesCount: view.likesCount }),
        viewsCount: view.viewsCount,
        likesCount: view.likesCount,
        isRead: true,
        userLiked: view.userLiked,
      }),
    };
  },

  async markAnnouncementRead(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const now = new Date();
    assertVisible(await findVisibility(db, id), id, await audienceOf(db, auth), now);
    const readAt = await markRead(db, id, auth.userId, now);
    return { message: 'Announcement marked as read', result: { announcementId: id, userId: auth.userId, readAt: iso(readAt) } };
  },

  async likeAnnouncement(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const now = new Date();
    assertVisible(await findVisibility(db, id), id, await audienceOf(db, auth), now);
    if (req.body.action === 'REMOVE') {
      const likesCount = await removeLike(db, id, auth.userId);
      return { message: 'Like removed', result: { announcementId: id, action: 'REMOVE', likesCount, userLiked: false } };
    }
    let likesCount: number;
    try {
      likesCount = await addLike(db, id, auth.userId, now);
    } catch (error) {
      if (isUniqueViolation(error, 'announcement_likes_pkey')) {
        throw new AppError('LIKE_ALREADY_EXISTS', { announcementId: id }, 'You already liked this announcement');
      }
      // Deleted between the check and the insert.
      if (isForeignKeyViolation(error, 'announcement_likes_announcement_id_fkey')) throw announcementNotFound(id);
      throw error;
    }
    return { message: 'Announcement liked', result: { announcementId: id, action: 'LIKE', likesCount, userLiked: true } };
  },

  async listAnnouncementCategories(req) {
    const auth = caller(req);
    const { db } = req.server;
    const audience = await audienceOf(db, auth);
    const now = new Date();
    const categories = await announcementCache(req.server).remember(`categories:${audienceKey(audience)}`, CATEGORIES_TTL_MS, async () => ({
      value: (await listCategories(db, audience, now)).map(toCategory),
      ttlMs: await untilNextExpiry(db, now),
    }));
    return { message: 'Announcement categories retrieved successfully', result: categories };
  },

  async listImportantAnnouncements(req) {
    const auth = caller(req);
    const { db } = req.server;
    const audience = await audienceOf(db, auth);
    const { rows, total } = await listImportant(
      db,
      audience,
      auth.userId,
      new Date(),
      Object.assign({}, req.query, { priority: req.query.priority ?? 'HIGH' }),
    );
    return {
      message: 'Important announcements retrieved successfully',
      result: { count: total, announcements: rows.map(toImportant) },
    };
  },
};
