import type { components } from '@transport-ops/contract';
import { sql, type UpdateObject } from 'kysely';
import { atomically } from '../../db/request-transaction.js';
import type { Database, NewTransportDocument, Transport, TransportStatus, TransportsTable } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { type ColumnsOf, sentColumns } from '../../lib/patch.js';
import { findCustomerInScope } from '../../lib/customer-scope.js';
import { ownedBy } from '../../lib/scope.js';
import type { AuthContext } from '../../lib/identity.js';
import { emitEvent } from '../events/emit-repository.js';
import { toTransport } from './mappers.js';
import { type Db, loadTransport } from './repository.js';
import { customerNotFound, missingCustomerInfo, vehicleTypeNotFound } from './rules.js';

type Schemas = components['schemas'];
type NewCustomer = Schemas['TransportNewCustomer'];
type FieldChanges = Schemas['TransportAdminUpdateRequest'];

const hasContact = (c: { email?: string | null; phone?: string | null }) => Boolean(c.email?.trim()) || Boolean(c.phone?.trim());

/** 400 MISSING_CUSTOMER_INFO for a new customer with neither e-mail nor phone. */
export function checkNewCustomer(customer: NewCustomer | undefined): void {
  if (customer && !hasContact(customer)) throw missingCustomerInfo('newCustomer must have an email or a phone');
}

/** 404 VEHICLE_TYPE_NOT_FOUND unless the type exists and is active (or is `keepId`, the transport's current type). */
export async function requireVehicleType(db: Db, id: number, keepId?: number): Promise<void> {
  const row = await db.selectFrom('vehicle_types').select('is_active').where('id', '=', id).executeTakeFirst();
  if (!row || (!row.is_active && id !== keepId)) throw vehicleTypeNotFound(id);
}

/**
 * 404 CUSTOMER_NOT_FOUND unless the actor is an active customer within the caller's scope
 * (lib/customer-scope.ts); 400 MISSING_CUSTOMER_INFO without contact.
 */
export async function requireCustomer(db: Db, auth: AuthContext, id: number): Promise<void> {
  const row = await findCustomerInScope(db, auth, id, { activeOnly: true });
  if (!row) throw customerNotFound(id);
  if (!hasContact(row)) throw missingCustomerInfo(`customer ${id} has neither an email nor a phone`);
}

export async function insertCustomer(trx: Db, c: NewCustomer): Promise<number> {
  const row = await trx
    .insertInto('actors')
    .values({
      actor_role: 'CUSTOMER',
      first_name: c.firstName,
      last_name: c.lastName,
      email: c.email ?? null,
      phone: c.phone ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertHistory(
  trx: Db,
  entry: {
    transportId: number;
    from: TransportStatus | null;
    to: TransportStatus;
    action: Schemas['TransportHistoryAction'];
    comment?: string | null;
    userId: number;
    validationLevel?: number | null;
  },
): Promise<void> {
  await trx
    .insertInto('transport_status_history')
    .values({
      transport_id: entry.transportId,
      from_status: entry.from,
      to_status: entry.to,
      action: entry.action,
      comment: entry.comment ?? null,
      validation_level: entry.validationLevel ?? null,
      created_by: entry.userId,
    })
    .execute();
}

/** Maps a lost race on a referenced row (deleted meanwhile) to the contract's not-found code. */
function referenceError(error: unknown, input: { vehicleTypeId?: number; customerId?: number | null }): unknown {
  if (isForeignKeyViolation(error, 'transports_vehicle_type_id_fkey') && input.vehicleTypeId !== undefined) {
    return vehicleTypeNotFound(input.vehicleTypeId);
  }
  if (isForeignKeyViolation(error, 'transports_customer_id_fkey') && typeof input.customerId === 'number') {
    return customerNotFound(input.customerId);
  }
  return error;
}

/** The loading number named by a unique violation ("Key (loading_number)=(TRP-...) already exists."). */
function takenNumber(error: unknown): string {
  const detail = (error as { detail?: string }).detail ?? '';
  return /=\(([^)]*)\)/.exec(detail)?.[1] ?? 'unknown';
}

/**
 * Inserts the transport (loading number from the column default, i.e. the sequence), its new
 * customer if any, and the CREATE history entry, as one atomic unit (`atomically`: inside a
 * request transaction, in it without a savepoint). A loading number already taken outside the
 * sequence is skipped once (the insert does nothing, no error) and the next number tried in the
 * same transaction; taken too, 409 and nothing is stored.
 */
export async function createTransport(db: Db, userId: number, body: Schemas['TransportCreateRequest']): Promise<number> {
  const total =
    body.totalProductValue ??
    (body.productQuantity !== undefined && body.averageUnitPrice !== undefined ? body.productQuantity * body.averageUnitPrice : null);
  try {
    return await atomically(db, async (trx) => {
      const customerId = body.newCustomer ? await insertCustomer(trx, body.newCustomer) : (body.customerId ?? null);
      const insert = (skipTaken: boolean) => {
        const query = trx.insertInto('transports').values({
          charger_first_name: body.chargerFirstName,
          charger_last_name: body.chargerLastName,
          charger_phone: body.chargerPhone ?? null,
          charger_email: body.chargerEmail ?? null,
          vehicle_type_id: body.vehicleTypeId,
          loading_point: body.loadingPoint,
          unloading_point: body.unloadingPoint ?? null,
          vehicle_plate_number: body.vehiclePlateNumber ?? null,
          product_label: body.productLabel ?? null,
          product_quantity: body.productQuantity ?? null,
          average_weight: body.averageWeight ?? null,
          average_unit_price: body.averageUnitPrice ?? null,
          total_product_value: total,
          customer_id: customerId,
          created_by: userId,
          ...placeColumns(body),
        });
        return (skipTaken ? query.onConflict((oc) => oc.constraint('transports_loading_number_key').doNothing()) : query)
          .returning(['id', 'loading_number', 'status'])
          .executeTakeFirst();
      };
      const row = (await insert(true)) ?? (await insert(false));
      if (!row) throw new Error('the transport insert returned no row');
      await insertHistory(trx, { transportId: row.id, from: null, to: row.status, action: 'CREATE', userId });
      const created = await loadTransport(trx, row.id);
      await emitEvent(trx, 'transport.created', { type: 'transport', id: row.id }, toTransport(created!));
      return row.id;
    });
  } catch (error) {
    if (!isUniqueViolation(error, 'transports_loading_number_key')) throw referenceError(error, body);
    throw new AppError('LOADING_NUMBER_EXISTS', { loadingNumber: takenNumber(error) }, 'Loading number already exists');
  }
}

const CHANGE_COLUMNS = {
  chargerFirstName: 'charger_first_name',
  chargerLastName: 'charger_last_name',
  chargerPhone: 'charger_phone',
  chargerEmail: 'charger_email',
  vehicleTypeId: 'vehicle_type_id',
  loadingPoint: 'loading_point',
  unloadingPoint: 'unloading_point',
  vehiclePlateNumber: 'vehicle_plate_number',
  productLabel: 'product_label',
  productQuantity: 'product_quantity',
  averageWeight: 'average_weight',
  averageUnitPrice: 'average_unit_price',
  totalProductValue: 'total_product_value',
} as const satisfies ColumnsOf<FieldChanges, TransportsTable>;

/**
 * The column changes of a PATCH: only the fields sent. When `totalProductValue` is not sent but the
 * quantity or the unit price is, the total is recomputed in SQL from the new and stored values, so
 * that two concurrent changes cannot combine stale values.
 */
export function fieldChanges(body: FieldChanges): UpdateObject<Database, 'transports'> {
  const set: UpdateObject<Database, 'transports'> = sentColumns(body, CHANGE_COLUMNS);
  if (body.totalProductValue === undefined && (body.productQuantity !== undefined || body.averageUnitPrice !== undefined)) {
    const quantity = body.productQuantity !== undefined ? sql`${body.productQuantity}::float8` : sql.ref('product_quantity');
    const price = body.averageUnitPrice !== undefined ? sql`${body.averageUnitPrice}::float8` : sql.ref('average_unit_price');
    set.total_product_value = sql<number | null>`${quantity} * ${price}`;
  }
  return Object.assign(set, placeColumns(body));
}

type Places = Pick<FieldChanges, 'loadingCoordinates' | 'unloadingCoordinates' | 'loadingWindow' | 'unloadingWindow'>;

/** The coordinates and appointment windows sent (null clears a pair), as their column pairs. */
function placeColumns(body: Places): UpdateObject<Database, 'transports'> {
  const set: UpdateObject<Database, 'transports'> = {};
  const pair = <A extends string, B extends string>(a: A, b: B, value: unknown, x: string, y: string) => {
    if (value === undefined) return;
    const v = value as Record<string, unknown> | null;
    Object.assign(set, { [a]: v === null ? null : v[x], [b]: v === null ? null : v[y] });
  };
  pair('loading_latitude', 'loading_longitude', body.loadingCoordinates, 'latitude', 'longitude');
  pair('unloading_latitude', 'unloading_longitude', body.unloadingCoordinates, 'latitude', 'longitude');
  pair('loading_window_start', 'loading_window_end', body.loadingWindow, 'start', 'end');
  pair('unloading_window_start', 'unloading_window_end', body.unloadingWindow, 'start', 'end');
  return set;
}

/**
 * Applies changes to a transport only while its status is one of `editable` (guarded in the
 * UPDATE itself, so a concurrent action cannot slip in between). Returns false when the guard failed.
 */
export async function updateFields(
  trx: Db,
  id: number,
  editable: TransportStatus[],
  set: UpdateObject<Database, 'transports'>,
  input: { vehicleTypeId?: number; customerId?: number | null },
): Promise<boolean> {
  try {
    const row = await trx
      .updateTable('transports')
      .set(Object.assign({}, set, { updated_at: new Date() }))
      .where('id', '=', id)
      .where('status', 'in', editable)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  } catch (error) {
    throw referenceError(error, input);
  }
}

type StoredState = Pick<Transport, 'status' | 'validation_level'>;

/** Moves a transport from `from` to `to`; false when another action changed its state first. */
export async function moveState(trx: Db, id: number, from: StoredState, to: StoredState): Promise<boolean> {
  const row = await trx
    .updateTable('transports')
    .set(Object.assign({}, to, { updated_at: new Date() }))
    .where('id', '=', id)
    .where('status', '=', from.status)
    .where('validation_level', '=', from.validation_level)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Deletes a transport (documents and history go with it: ON DELETE CASCADE), only while its
 * status is one of `statuses` when given. False when nothing matched.
 */
export async function deleteTransport(db: Db, id: number, statuses?: TransportStatus[]): Promise<boolean> {
  let query = db.deleteFrom('transports').where('id', '=', id);
  if (statuses) query = query.where('status', 'in', statuses);
  return (await query.returning('id').executeTakeFirst()) !== undefined;
}

/** The caller's transport, share-locked so that it cannot be archived or deleted until the commit. */
export const lockOwnedTransport = (trx: Db, auth: AuthContext, id: number) =>
  trx
    .selectFrom('transports as t')
    .select(['t.id', 't.status'])
    .where('t.id', '=', id)
    .where(ownedBy(auth, 't.created_by'))
    .forShare()
    .executeTakeFirst();

export const insertDocument = (trx: Db, document: NewTransportDocument) =>
  trx.insertInto('transport_documents').values(document).returning(['id', 'filename', 'mime_type', 'size']).executeTakeFirstOrThrow();
