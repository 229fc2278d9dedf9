import type { Kysely } from 'kysely';
import type { ComplaintStatus, Database } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import type { AuthContext } from '../../lib/identity.js';
import { audit, type AuditSource } from '../../lib/audit.js';
import { addHistory, moveStatus, queueResolutionNotice } from './change-repository.js';
import { emitComplaintStatusChanged } from './events-repository.js';
import { complaintNotFound } from './rules.js';
import { findState, statusOf } from './repository.js';
import { COMPLAINT_WORKFLOW, workableComplaints } from './rules.js';

/**
 * Moves a complaint of the caller's workable scope to `requested` along the complaint state
 * machine, in one transaction: the guarded status change, its history entry and, for
 * `RESOLVED`, the customer notice. Shared by the user-side and the administration paths.
 * Throws 404 outside the scope, 403 for a move that is not the caller's role's, 409 for a move
 * the state machine does not offer (or that a concurrent change made impossible).
 */
export async function changeStatus(
  db: Kysely<Database>,
  auth: AuthContext,
  id: number,
  requested: ComplaintStatus,
  comment: string | null,
  /** Called in the transaction once the status moved (the audit entry of a staff change). */
  changed?: (trx: Kysely<Database>, from: ComplaintStatus) => Promise<void>,
): Promise<void> {
  const scope = workableComplaints(auth);
  await db.transaction().execute(async (trx) => {
    const complaint = await findState(trx, id, scope);
    if (!complaint) throw complaintNotFound(id);
    let current = complaint.status;
    const at = new Date();
    const verdict = COMPLAINT_WORKFLOW.check(current, requested, auth.accessLevel);
    if (!verdict.ok && verdict.reason === 'role') {
      throw new AppError(
        'FORBIDDEN',
        { requiredRoles: [...verdict.roles] },
        `Your role may not move a complaint from ${current} to ${requested}`,
      );
    }
    if (verdict.ok && (await moveStatus(trx, id, current, requested, at))) {
      await addHistory(trx, id, requested, comment, auth.userId, at);
      if (requested === 'RESOLVED') await queueResolutionNotice(trx, complaint, comment, at);
      await emitComplaintStatusChanged(trx, id, complaint.status, requested, comment);
      await changed?.(trx, complaint.status);
      return;
    }
    // Refused, or a concurrent change moved it first (the guarded UPDATE found nothing): answer from where it is now.
    current = (await statusOf(trx, id)) ?? current;
    throw new AppError(
      'INVALID_STATUS_TRANSITION',
      { currentStatus: current, requested, allowed: COMPLAINT_WORKFLOW.targets(current, auth.accessLevel) },
      `Cannot change complaint status from ${current} to ${requested}`,
    );
  });
}

/** The `changed` callback of `changeStatus` that records a staff member's move in the audit log. */
export const auditStatusChange =
  (req: AuditSource, id: number, status: ComplaintStatus, comment: string | null) => (trx: Kysely<Database>, from: ComplaintStatus) =>
    audit(trx, req, {
      action: 'complaint.status_changed',
      resource: { type: 'complaint', id },
      before: { status: from },
      after: { status },
      details: comment === null ? undefined : { comment },
    });
