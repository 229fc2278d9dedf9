import { sql, type Expression, type SqlBool } from 'kysely';
import { enumValues } from '../../contract.js';
import type { ComplaintStatus } from '../../db/schema.js';
import { ownedBy } from '../../lib/scope.js';
import type { AuthContext } from '../../plugins/security.js';

/** The complaint state machine of the contract (ComplaintStatus): the statuses reachable from each one. */
export const NEXT_STATUSES: Record<ComplaintStatus, ComplaintStatus[]> = {
  PENDING: ['IN_PROGRESS', 'UNDER_REVIEW', 'ESCALATED', 'REJECTED'],
  IN_PROGRESS: ['RESOLVED', 'UNDER_REVIEW', 'ESCALATED', 'REJECTED'],
  UNDER_REVIEW: ['IN_PROGRESS', 'RESOLVED', 'REJECTED', 'ESCALATED'],
  ESCALATED: ['IN_PROGRESS', 'UNDER_REVIEW', 'RESOLVED', 'REJECTED'],
  RESOLVED: ['CLOSED', 'REOPENED'],
  REJECTED: ['CLOSED', 'REOPENED'],
  REOPENED: ['IN_PROGRESS', 'ESCALATED', 'REJECTED'],
  CLOSED: [],
};

/** Every status, in the order of the contract's enum (the stats' byStatus order). */
export const STATUSES: ComplaintStatus[] = enumValues('ComplaintStatus');

/**
 * Complaints the caller may read on the user side (alias `c`): their ownership scope, plus, for
 * an agent, the complaints assigned to them (read only).
 */
export function readableBy(auth: AuthContext): Expression<SqlBool> {
  if (auth.accessLevel !== 'agent') return ownedBy(auth, 'c.created_by');
  return sql<SqlBool>`(${ownedBy(auth, 'c.created_by')} or c.assigned_to = ${auth.userId})`;
}

/** Complaints the caller may change or delete on the user side, and staff may handle (alias `c`). */
export const ownedComplaints = (auth: AuthContext) => ownedBy(auth, 'c.created_by');
