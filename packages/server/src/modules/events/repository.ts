import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Database, EventResourceType, EventType } from '../../db/schema.js';

type Db = Kysely<Database>;

export interface EventFilters {
  type?: EventType | undefined;
  resourceType?: EventResourceType | undefined;
  resourceId?: number | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
}

const columns = ['id', 'public_id', 'type', 'resource_type', 'resource_id', 'occurred_at', 'data'] as const;

/** The filtered log, newest first (by id: ids grow with commits closely enough, and never tie). */
export function eventList(db: Db, f: EventFilters, beforeId?: number) {
  let query = db.selectFrom('events').select(columns);
  if (f.type !== undefined) query = query.where('type', '=', f.type);
  if (f.resourceType !== undefined) query = query.where('resource_type', '=', f.resourceType);
  if (f.resourceId !== undefined) query = query.where('resource_id', '=', f.resourceId);
  if (f.startDate !== undefined) query = query.where('occurred_at', '>=', new Date(f.startDate));
  if (f.endDate !== undefined) query = query.where('occurred_at', '<=', new Date(f.endDate));
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  return query.orderBy('id', 'desc');
}
export type EventRow = Awaited<ReturnType<ReturnType<typeof eventList>['execute']>>[number];

export const findEvent = (db: Db, publicId: string) =>
  db.selectFrom('events').select(columns).where('public_id', '=', publicId).executeTakeFirst();

/** The active endpoints subscribed to `type` now, or the one active endpoint `subscriptionId` (whatever its types). */
export async function redeliveryTargets(db: Db, type: EventType, subscriptionId?: number): Promise<number[]> {
  let query = db.selectFrom('webhook_subscriptions').select('id').where('is_active', '=', true);
  query = subscriptionId !== undefined ? query.where('id', '=', subscriptionId) : query.where(sql<SqlBool>`event_types ? ${type}`);
  return (await query.orderBy('id').execute()).map((r) => r.id);
}

/** The events matching `filters`, counted up to `cap` + 1 (a page's total beyond which it is not exact). */
export async function countEvents(db: Db, filters: EventFilters, cap: number): Promise<number> {
  const counted = await db
    .selectFrom(
      eventList(db, filters)
        .clearSelect()
        .clearOrderBy()
        .select('id')
        .limit(cap + 1)
        .as('c'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}
