import { firstViewToday } from '../../lib/views.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/* The user-side writes: read marks, views and likes. Counters change in SQL, in the same transaction as their rows. */

/** Marks read (the first read time is kept) and returns the read time. */
export async function markRead(db: Kysely<Database>, announcementId: number, userId: number, now: Date): Promise<Date> {
  await db
    .insertInto('announcement_reads')
    .values({ announcement_id: announcementId, user_id: userId, read_at: now })
    .onConflict((oc) => oc.columns(['announcement_id', 'user_id']).doNothing())
    .execute();
  const row = await db
    .selectFrom('announcement_reads')
    .select('read_at')
    .where('announcement_id', '=', announcementId)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return new Date(row.read_at);
}

/**
 * A detail view: counts it (once per user per day, see firstViewToday), marks the announcement
 * read and answers the fresh counters and the caller's like. Undefined when the announcement is
 * no longer published (deleted or hidden since the detail was cached). Counters are not edits:
 * `updated_at` is left alone.
 */
export async function recordView(db: Kysely<Database>, announcementId: number, userId: number, now: Date) {
  return db.transaction().execute(async (trx) => {
    const published = await trx
      .selectFrom('announcements')
      .select('id')
      .where('id', '=', announcementId)
      .where('status', '=', 'PUBLISHED')
      .executeTakeFirst();
    if (!published) return undefined;
    const counted = (await firstViewToday(trx, 'ANNOUNCEMENT', announcementId, userId, now)) ? 1 : 0;
    const counters = await trx
      .updateTable('announcements')
      .set((eb) => ({ views_count: eb('views_count', '+', counted) }))
      .where('id', '=', announcementId)
      .where('status', '=', 'PUBLISHED')
      .returning(['views_count', 'likes_count'])
      .executeTakeFirst();
    if (!counters) return undefined;
    await markRead(trx, announcementId, userId, now);
    const like = await trx
      .selectFrom('announcement_likes')
      .select('user_id')
      .where('announcement_id', '=', announcementId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return { viewsCount: counters.views_count, likesCount: counters.likes_count, userLiked: like !== undefined };
  });
}

/** Adds the caller's like and answers the new count; the primary key refuses a second like. */
export async function addLike(db: Kysely<Database>, announcementId: number, userId: number, now: Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await trx.insertInto('announcement_likes').values({ announcement_id: announcementId, user_id: userId, created_at: now }).execute();
    const row = await trx
      .updateTable('announcements')
      .set((eb) => ({ likes_count: eb('likes_count', '+', 1) }))
      .where('id', '=', announcementId)
      .returning('likes_count')
      .executeTakeFirstOrThrow();
    return row.likes_count;
  });
}

/** Withdraws the caller's like if any and answers the count. */
export async function removeLike(db: Kysely<Database>, announcementId: number, userId: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('announcement_likes')
      .where('announcement_id', '=', announcementId)
      .where('user_id', '=', userId)
      .returning('user_id')
      .executeTakeFirst();
    const row = removed
      ? await trx
          .updateTable('announcements')
          .set((eb) => ({ likes_count: eb('likes_count', '-', 1) }))
          .where('id', '=', announcementId)
          .returning('likes_count')
          .executeTakeFirstOrThrow()
      : await trx.selectFrom('announcements').select('likes_count').where('id', '=', announcementId).executeTakeFirstOrThrow();
    return row.likes_count;
  });
}
