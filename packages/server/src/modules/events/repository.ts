import type { operations } from '@transport-ops/contract';
import { type Kysely, type SqlBool, sql } from 'kysely';
import { type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { Database, EventResourceType, EventType } from '../../db/schema.js';

type Db = Kysely<Database>;

/** The query parameters of the log's list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listEvents']['parameters']['query']>;
export type EventFilters = Omit<ListParameters, 'page' | 'limit' | 'cursor'>;

const columns = ['id', 'public_id', 'type', 'resource_type', 'resource_id', 'occurred_at', 'data'] as const;
const eventsFrom = (db: Db) => db.selectFrom('events').select(columns);

/**
 * Each filter of the log's list, declared once (lib/filter-spec.ts), applied to the page and its
 * count. Typed from the contract: a query parameter of `listEvents` with no entry here (and not a
 * paging one) is a type error. The order is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof eventsFrom>>> = {
  type: { bind: same, where: (eb, v) => eb('type', '=', v as EventType), columns: ['type'] },
  resourceType: { bind: same, where: (eb, v) => eb('resource_type', '=', v as EventResourceType), columns: ['resource_type'] },
  resourceId: { bind: same, where: (eb, v) => eb('resource_id', '=', v as number), columns: ['resource_id'] },
  startDate: { bind: (v) => new Date(v), where: (eb, v) => eb('occurred_at', '>=', v as Date), columns: ['occurred_at'] },
  endDate: { bind: (v) => new Date(v), where: (eb, v) => eb('occurred_at', '<=', v as Date), columns: ['occurred_at'] },
};
const FILTER = filters(FILTERS);

/** The filtered log, newest first (by id: ids grow with commits closely enough, and never tie). */
export function eventList(db: Db, f: EventFilters, beforeId?: number) {
  let query = FILTER.apply(eventsFrom(db), FILTER.bind(f, {}));
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
