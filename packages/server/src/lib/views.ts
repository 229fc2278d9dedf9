import type { Kysely } from 'kysely';
import type { Database, ViewedResource } from '../db/schema.js';

/**
 * The one view-counting rule of announcements, forum topics and tutorials: a user counts once per
 * resource per day (UTC), so reloading a page does not inflate a counter. The day's row is the
 * proof (primary key resource, user, day): true when this view is the user's first of the day,
 * and the caller then adds one to the resource's counter in the same transaction.
 */
export async function firstViewToday(
  db: Kysely<Database>,
  resource: ViewedResource,
  resourceId: number,
  userId: number,
  now = new Date(),
): Promise<boolean> {
  const row = await db
    .insertInto('content_views')
    .values({ resource_type: resource, resource_id: resourceId, user_id: userId, day: now.toISOString().slice(0, 10) })
    .onConflict((oc) => oc.doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}
