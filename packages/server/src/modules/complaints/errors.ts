import type { Kysely } from 'kysely';
import type { ComplaintStatus, Database } from '../../db/schema.js';
import { AppError, notFound } from '../../http/errors.js';
import { findCustomerInScope } from '../../lib/customer-scope.js';
import type { AuthContext } from '../../plugins/security.js';
import { isActiveType } from '../complaint-types/repository.js';

export const complaintNotFound = (complaintId: number) => new AppError('COMPLAINT_NOT_FOUND', { complaintId }, 'Complaint not found');

export const notEditable = (id: number, status: ComplaintStatus, message = 'Complaint can no longer be changed') =>
  new AppError('NOT_EDITABLE', { resource: 'complaint', id, status }, message);

/**
 * The customer and complaint type a complaint is about to point at: a customer within the caller's
 * customer scope (the rule transports follow, lib/customer-scope.ts), an active type.
 */
export async function checkReferences(
  db: Kysely<Database>,
  auth: AuthContext,
  refs: { customerId?: number | null; complaintTypeId?: number | null },
) {
  const { customerId, complaintTypeId } = refs;
  if (customerId !== undefined && customerId !== null && !(await findCustomerInScope(db, auth, customerId, { activeOnly: false }))) {
    throw new AppError('CUSTOMER_NOT_FOUND', { customerId }, 'Customer not found');
  }
  if (complaintTypeId !== undefined && complaintTypeId !== null && !(await isActiveType(db, complaintTypeId))) {
    throw notFound.resource('complaintType', complaintTypeId);
  }
}
