import type { Expression, Kysely, SqlBool } from 'kysely';
import { enumValues } from '../../contract.js';
import type { ComplaintStatus, Database } from '../../db/schema.js';
import { type Ownership, ownedBy, ownedOrAssigned, ownership } from '../../lib/scope.js';
import { STAFF, stateMachine } from '../../lib/state-machine.js';
import type { AccessLevel, AuthContext } from '../../lib/identity.js';
import { AppError, notFound } from '../../lib/errors.js';
import { findCustomerInScope } from '../../lib/customer-scope.js';
import { isActiveType } from '../complaint-types/repository.js';

const AGENT_AND_STAFF = ['agent', ...STAFF] as const;

/** Rows of the complaint workflow: from one status, the statuses it may move to and who may move it. */
const moves = (from: ComplaintStatus, to: ComplaintStatus[], roles: readonly AccessLevel[]) =>
  to.map((target) => ({ from, action: target, to: target, roles }));

/**
 * The complaint workflow (the contract's table on `changeComplaintStatus`): the action is the
 * requested status. Agents take a complaint in charge (PENDING -> IN_PROGRESS) and mark it
 * processed (IN_PROGRESS -> RESOLVED), as the specification's "agent action" rows say; every
 * other move is the staff's.
 */
export const COMPLAINT_WORKFLOW = stateMachine<ComplaintStatus, ComplaintStatus, AccessLevel>([
  ...moves('PENDING', ['IN_PROGRESS'], AGENT_AND_STAFF),
  ...moves('PENDING', ['UNDER_REVIEW', 'ESCALATED', 'REJECTED'], STAFF),
  ...moves('IN_PROGRESS', ['RESOLVED'], AGENT_AND_STAFF),
  ...moves('IN_PROGRESS', ['UNDER_REVIEW', 'ESCALATED', 'REJECTED'], STAFF),
  ...moves('UNDER_REVIEW', ['IN_PROGRESS', 'RESOLVED', 'REJECTED', 'ESCALATED'], STAFF),
  ...moves('ESCALATED', ['IN_PROGRESS', 'UNDER_REVIEW', 'RESOLVED', 'REJECTED'], STAFF),
  ...moves('RESOLVED', ['CLOSED', 'REOPENED'], STAFF),
  ...moves('REJECTED', ['CLOSED', 'REOPENED'], STAFF),
  ...moves('REOPENED', ['IN_PROGRESS', 'ESCALATED', 'REJECTED'], STAFF),
]);

/** Statuses in which an administrator may delete a complaint: the finished ones. */
export const DELETABLE_BY_ADMIN: ComplaintStatus[] = ['REJECTED', 'CLOSED'];

/** Every status, in the order of the contract's enum (the stats' byStatus order). */
export const STATUSES: ComplaintStatus[] = enumValues('ComplaintStatus');

/**
 * Complaints the caller may read on the user side (alias `c`): their ownership scope, plus, for
 * an agent, the complaints assigned to them (read only).
 */
export function readableBy(auth: AuthContext): Expression<SqlBool> {
  if (auth.accessLevel !== 'agent') return ownedBy(auth, 'c.created_by');
  return ownedOrAssigned(auth, 'c.created_by', 'c.assigned_to');
}

/** A list's scope as values a query shape binds: the caller's ownership, and whether their assigned complaints are in it. */
export interface ComplaintScope extends Ownership {
  orAssigned: boolean;
}

/** `readableBy` as a list scope. */
export const readableScope = (auth: AuthContext): ComplaintScope =>
  Object.assign({}, ownership(auth), { orAssigned: auth.accessLevel === 'agent' });

/** `ownedComplaints` as a list scope. */
export const ownedScope = (auth: AuthContext): ComplaintScope => Object.assign({}, ownership(auth), { orAssigned: false });

/** Complaints the caller may change or delete on the user side, and staff may handle (alias `c`). */
export const ownedComplaints = (auth: AuthContext) => ownedBy(auth, 'c.created_by');

/**
 * Complaints whose status the caller may move (alias `c`): staff, their scope; an agent, the
 * complaints they created or that are assigned to them.
 */
export const workableComplaints = (auth: AuthContext) => (auth.accessLevel === 'agent' ? readableBy(auth) : ownedComplaints(auth));

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
