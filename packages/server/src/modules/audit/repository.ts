import type { operations } from '@transport-ops/contract';
import { type Kysely, sql } from 'kysely';
import { type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** The query parameters of the log's list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listAuditLog']['parameters']['query']>;
export type AuditFilters = Omit<ListParameters, 'page' | 'limit' | 'cursor'>;

const entriesFrom = (db: Db) => db.selectFrom('audit_log').selectAll();

/**
 * Each filter of the log's list, declared once (lib/filter-spec.ts), applied to the page and its
 * count. Typed from the contract: a query parameter of `listAuditLog` with no entry here (and not a
 * paging one) is a type error.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof entriesFrom>>> = {
  actorId: { bind: same, where: (eb, v) => eb('actor_user_id', '=', v as number), columns: ['actor_user_id'] },
  action: { bind: same, where: (eb, v) => eb('action', '=', v as string), columns: ['action'] },
  resourceType: { bind: same, where: (eb, v) => eb('resource_type', '=', v as string), columns: ['resource_type'] },
  resourceId: { bind: same, where: (eb, v) => eb('resource_id', '=', v as number), columns: ['resource_id'] },
  requestId: { bind: same, where: (eb, v) => eb('request_id', '=', v as string), columns: ['request_id'] },
  startDate: { bind: (v) => new Date(v), where: (eb, v) => eb('occurred_at', '>=', v as Date), columns: ['occurred_at'] },
  endDate: { bind: (v) => new Date(v), where: (eb, v) => eb('occurred_at', '<=', v as Date), columns: ['occurred_at'] },
};
const FILTER = filters(FILTERS);

/** The filtered log, newest first (by id: one per entry, growing as they are written). */
export function auditList(db: Db, f: AuditFilters, beforeId?: number) {
  let query = FILTER.apply(entriesFrom(db), FILTER.bind(f, {}));
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  return query.orderBy('id', 'desc');
}
export type AuditRow = Awaited<ReturnType<ReturnType<typeof auditList>['execute']>>[number];

/** The entries matching `filters`, counted up to `cap` + 1 (a page's total beyond which it is not exact). */
export async function countEntries(db: Db, f: AuditFilters, cap: number): Promise<number> {
  const counted = await db
    .selectFrom(
      auditList(db, f)
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

/**
 * Removes up to `batch` entries written before `cutoff`, the one deletion the table lets through:
 * `audit.sweep` is set for this transaction only (migration 0023's trigger reads it).
 */
export async function deleteEntriesBefore(db: Db, cutoff: Date, batch: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('audit.sweep', 'on', true)`.execute(trx);
    const expired = trx.selectFrom('audit_log').select('id').where('occurred_at', '<', cutoff).orderBy('id').limit(batch);
    const result = await trx.deleteFrom('audit_log').where('id', 'in', expired).executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}
