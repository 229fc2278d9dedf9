import type { Expression, Kysely, SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { notFound } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { linkedPageMeta } from '../../lib/paging.js';
import { withinTeam } from '../../lib/scope.js';
import { type AuthContext, caller } from '../../lib/identity.js';
import { audit } from '../../lib/audit.js';
import { auditedFields, toAdmin, toAdminListItem, toChanges, toHistoryEntry } from './mappers.js';
import { assign, deleteComplaint, updateComplaint } from './change-repository.js';
import { auditStatusChange, changeStatus } from './status-change.js';
import {
  attachmentsOf,
  auditedRow,
  findAssignee,
  findComplaint,
  findState,
  historyOf,
  listPage,
  notificationsOf,
  statusOf,
} from './repository.js';
import {
  checkReferences,
  complaintNotFound,
  DELETABLE_BY_ADMIN,
  notEditable,
  ownedComplaints,
  ownedScope,
  workableComplaints,
} from './rules.js';
import { complaintStats } from './stats-repository.js';
import { toNotification } from '../notifications/mappers.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

// Staff see the complaints of their scope (ownedComplaints): a team manager their subtree's,
// supervisors and above all of them.

/** The staff view of a complaint just changed by the caller. */
async function adminView(db: Kysely<Database>, id: number, auth: AuthContext, scope: Expression<SqlBool> = ownedComplaints(auth)) {
  const row = await findComplaint(db, id, scope);
  if (!row) throw complaintNotFound(id);
  return toAdmin(row, await attachmentsOf(db, id), auth.accessLevel);
}

export const adminHandlers: ModuleHandlers<
  | 'listAdminComplaints'
  | 'getAdminComplaintById'
  | 'updateAdminComplaint'
  | 'deleteAdminComplaint'
  | 'changeComplaintStatus'
  | 'getAdminComplaintStatusHistory'
  | 'assignComplaint'
  | 'listComplaintNotifications'
  | 'getComplaintStats'
> = {
  async listAdminComplaints(req) {
    const auth = caller(req);
    const { page = 1, limit = 10, ...filters } = req.query;
    const { rows, total, extras } = await listPage(req.server.db, ownedScope(auth), Object.assign({}, filters, { page, limit }));
    return {
      message: 'Complaints retrieved',
      result: { data: rows.map(toAdminListItem), meta: linkedPageMeta(total, page, limit, extras) },
    };
  },

  async getAdminComplaintById(req) {
    return { message: 'Complaint retrieved', result: await adminComplaintRepresentations.getAdminComplaintById.read(req) };
  },

  async updateAdminComplaint(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const complaint = await findState(db, id, ownedComplaints(auth));
    if (!complaint) throw complaintNotFound(id);
    if (complaint.status === 'CLOSED') throw notEditable(id, complaint.status, 'Complaint is closed');
    await checkReferences(db, auth, req.body);
    const updated = await db.transaction().execute(async (trx) => {
      const before = await auditedRow(trx, id);
      if (!before || !(await updateComplaint(trx, id, toChanges(req.body), 'notClosed'))) return false;
      await audit(trx, req, {
        action: 'complaint.updated',
        resource: { type: 'complaint', id },
        before: auditedFields(before),
        after: req.body,
      });
      return true;
    });
    if (!updated) {
      const status = await statusOf(db, id);
      throw status === undefined ? complaintNotFound(id) : notEditable(id, status, 'Complaint is closed');
    }
    return { message: 'Complaint updated', result: await adminView(db, id, auth) };
  },

  async deleteAdminComplaint(req) {
    const { db } = req.server;
    const { id } = req.params;
    const deleted = await db.transaction().execute(async (trx) => {
      const before = await auditedRow(trx, id);
      if (!before || !(await deleteComplaint(trx, id, DELETABLE_BY_ADMIN))) return false;
      await audit(trx, req, { action: 'complaint.deleted', resource: { type: 'complaint', id }, before: auditedFields(before) });
      return true;
    });
    if (!deleted) {
      const status = await statusOf(db, id); // absent, or not (or no longer) in a deletable status
      if (status === undefined) throw complaintNotFound(id);
      throw notEditable(id, status, 'Only rejected or closed complaints can be deleted');
    }
    return { message: 'Complaint deleted', result: null };
  },

  async changeComplaintStatus(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { status, comment = null } = req.body;
    await changeStatus(db, auth, id, status, comment, auditStatusChange(req, id, status, comment));
    return { message: `Complaint status changed to ${req.body.status}`, result: await adminView(db, id, auth, workableComplaints(auth)) };
  },

  async getAdminComplaintStatusHistory(req) {
    const auth = caller(req);
    const { db } = req.server;
    const complaint = await findState(db, req.params.id, ownedComplaints(auth));
    if (!complaint) throw complaintNotFound(req.params.id);
    return { message: 'Status history retrieved', result: (await historyOf(db, complaint.id)).map(toHistoryEntry) };
  },

  async assignComplaint(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { userId } = req.body;
    const complaint = await findState(db, id, ownedComplaints(auth));
    if (!complaint) throw complaintNotFound(id);
    if (complaint.status === 'CLOSED') throw notEditable(id, complaint.status, 'Complaint is closed');
    const assignee = userId === null ? null : await findAssignee(db, userId, withinTeam(auth, 'u.organization_id'));
    if (userId !== null && !assignee) throw notFound.resource('user', userId);
    const assigned = await db.transaction().execute(async (trx) => {
      const before = await auditedRow(trx, id);
      if (!before || !(await assign(trx, id, userId))) return false;
      await audit(trx, req, {
        action: 'complaint.assigned',
        resource: { type: 'complaint', id },
        before: { userId: before.assigned_to },
        after: { userId },
      });
      return true;
    });
    if (!assigned) {
      const status = await statusOf(db, id); // closed or deleted since the check
      throw status === undefined ? complaintNotFound(id) : notEditable(id, status, 'Complaint is closed');
    }
    return {
      message: assignee ? `Complaint assigned to ${assignee.username}` : 'Complaint unassigned',
      result: await adminView(db, id, auth),
    };
  },

  async listComplaintNotifications(req) {
    const auth = caller(req);
    const { db } = req.server;
    const complaint = await findState(db, req.params.id, ownedComplaints(auth));
    if (!complaint) throw complaintNotFound(req.params.id);
    const rows = await notificationsOf(db, complaint.id);
    return {
      message: 'Notifications retrieved',
      result: rows.map(toNotification),
    };
  },

  async getComplaintStats(req) {
    const auth = caller(req);
    const days = req.query.days ?? 30;
    return { message: 'Complaint statistics retrieved', result: await complaintStats(req.server.db, auth, days) };
  },
};

/** The complaint as its administration GET answers it (write-safety/representations.ts). */
export const adminComplaintRepresentations: ModuleRepresentations<'getAdminComplaintById'> = {
  getAdminComplaintById: {
    row: { table: 'complaints', id: (req) => req.params.id },
    async read(req) {
      const auth = caller(req);
      const { db } = req.server;
      const row = await findComplaint(db, req.params.id, ownedComplaints(auth));
      if (!row) throw complaintNotFound(req.params.id);
      return toAdmin(row, await attachmentsOf(db, row.id), auth.accessLevel);
    },
  },
};
