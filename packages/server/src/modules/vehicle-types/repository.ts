import type { components, operations } from '@transport-ops/contract';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { queryShape } from '../../lib/query-shape.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Req } from '../../http/handlers.js';
import { iso } from '../../lib/time.js';
import { containing } from '../../lib/text.js';
import { liveCount } from '../../lib/counters.js';

type Db = Kysely<Database>;

/** Vehicle types with the number of transports using each (a counter the database keeps, migrations 0008 and 0016). */
export function vehicleTypeQuery(db: Db) {
  return db
    .selectFrom('vehicle_types as v')
    .select(['v.id', 'v.name', 'v.description', 'v.max_weight', 'v.category', 'v.is_active', 'v.created_at', 'v.updated_at'])
    .select(liveCount('vehicle_types.transports_count', 'v').as('usage_count'));
}
type VehicleTypeRow = NonNullable<Awaited<ReturnType<ReturnType<typeof vehicleTypeQuery>['executeTakeFirst']>>>;

export function toVehicleTypeAdmin(row: VehicleTypeRow): components['schemas']['VehicleTypeAdmin'] {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    // The column allows null but the API always writes a weight above 0.
    maxWeight: row.max_weight,
    category: row.category,
    isActive: row.is_active,
    usageCount: Number(row.usage_count ?? 0),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

type ListQuery = Req<'listConfigVehicleTypes'>['query'];

/** The query parameters of the list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listConfigVehicleTypes']['parameters']['query']>;

/**
 * Each filter of the vehicle type list, declared once (lib/filter-spec.ts). Typed from the contract: a query
 * parameter of `listConfigVehicleTypes` with no entry here (and not a paging one) is a type error. The order
 * is the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, WhereOf<ReturnType<typeof vehicleTypeQuery>>> = {
  isActive: { bind: same, where: (eb, v) => eb('v.is_active', '=', v as boolean), columns: ['v.is_active'] },
  category: { bind: same, where: (eb, v) => eb('v.category', '=', v as NonNullable<ListQuery['category']>), columns: ['v.category'] },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('v.name', 'ilike', v as string), eb('v.description', 'ilike', v as string)]),
    columns: ['v.name', 'v.description'],
    text: true,
  },
};
const FILTER = filters(FILTERS);

/** The list as a query shape (lib/query-shape.ts): compiled once per combination of filters. */
const vehicleTypeList = queryShape({ values: FILTER.values, structure: FILTER.structure }, (db, p: BoundFilters<ListParameters>) =>
  FILTER.apply(vehicleTypeQuery(db), p).orderBy('v.name').orderBy('v.id'),
);

export function listVehicleTypes(_db: Db, q: ListQuery) {
  return vehicleTypeList.with(FILTER.bind(q, {}));
}

export async function findVehicleType(db: Db, id: number) {
  const row = await vehicleTypeQuery(db).where('v.id', '=', id).executeTakeFirst();
  return row && toVehicleTypeAdmin(row);
}

/**
 * Transports using the type: the counter the database keeps (migration 0008). Read in the deleting
 * transaction after the row is locked, it is exact: a transport written with the type holds a key
 * share lock on it (its foreign key) and appends to the counter, so it commits before the lock is
 * granted or waits for the delete; the foreign key stays the final guard.
 */
export async function vehicleTypeUsage(db: Db, id: number): Promise<number> {
  const row = await db
    .selectFrom('vehicle_types as v')
    .select(liveCount('vehicle_types.transports_count', 'v').as('n'))
    .where('v.id', '=', id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
