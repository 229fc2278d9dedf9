import type { components } from '@transport-ops/contract';
import { sql, type Kysely } from 'kysely';
import type { Database, VehicleCategory } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import { containing } from '../../lib/text.js';

type Db = Kysely<Database>;

/** Vehicle types with the number of transports using each. */
export function vehicleTypeQuery(db: Db) {
  return db
    .selectFrom('vehicle_types as v')
    .select((eb) => [
      'v.id',
      'v.name',
      'v.description',
      'v.max_weight',
      'v.category',
      'v.is_active',
      'v.created_at',
      'v.updated_at',
      eb
        .selectFrom('transports as t')
        .whereRef('t.vehicle_type_id', '=', 'v.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('usage_count'),
    ]);
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

export interface VehicleTypeFilters {
  search?: string;
  isActive?: boolean;
  category?: VehicleCategory;
}


export function listQuery(db: Db, f: VehicleTypeFilters) {
  let q = vehicleTypeQuery(db);
  if (f.isActive !== undefined) q = q.where('v.is_active', '=', f.isActive);
  if (f.category !== undefined) q = q.where('v.category', '=', f.category);
  if (f.search !== undefined) {
    const pattern = containing(f.search);
    q = q.where((eb) => eb.or([eb('v.name', 'ilike', pattern), eb('v.description', 'ilike', pattern)]));
  }
  return q.orderBy('v.name').orderBy('v.id');
}

export const findVehicleType = (db: Db, id: number) => vehicleTypeQuery(db).where('v.id', '=', id).executeTakeFirst();

/**
 * Serializes name changes of vehicle types for the rest of the transaction: the unique constraint
 * on `name` is case-sensitive, the contract's rule is not, so the check and the write must not
 * interleave with another one.
 */
export async function lockNames(trx: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('vehicle_types.name'))`.execute(trx);
}

/** Another vehicle type with this name, compared case-insensitively. */
export async function nameTaken(trx: Db, name: string, exceptId?: number): Promise<boolean> {
  let q = trx
    .selectFrom('vehicle_types')
    .select('id')
    .where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export async function usageCount(db: Db, id: number): Promise<number> {
  const row = await db
    .selectFrom('transports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('vehicle_type_id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
