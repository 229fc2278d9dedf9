import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers, Req } from '../../http/handlers.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { linkedPageMeta } from '../../lib/paging.js';
import { ownedBy } from '../../lib/scope.js';
import { iso } from '../../lib/time.js';
import { caller } from '../../lib/identity.js';
import { isStaff } from '../../lib/audit.js';
import { activeTypes } from '../complaint-types/repository.js';
import { emitComplaintCreated } from './events-repository.js';
import { toChanges, toDetail, toHistoryEntry, toListItem } from './mappers.js';
import { linkAttachments } from './attachment-repository.js';
import { deleteComplaint, insertComplaint, updateComplaint } from './change-repository.js';
import {
  attachmentsOf,
  complaintOfTransport,
  findComplaint,
  findState,
  findTransport,
  historyOf,
  listPage,
  statusOf,
} from './repository.js';
import {
  checkReferences,
  complaintNotFound,
  notEditable,
  ownedComplaints,
  readableBy,
  readableScope,
  workableComplaints,
} from './rules.js';
import { auditStatusChange, changeStatus } from './status-change.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

export const tradeHandlers: ModuleHandlers<
  | 'createComplaint'
  | 'listComplaints'
  | 'getComplaintById'
  | 'updateComplaintStatus'
  | 'updateComplaint'
  | 'deleteComplaint'
  | 'getComplaintStatusHistory'
  | 'listComplaintTypes'
> = {
  async createComplaint(req) {
    const auth = caller(req);
    const { db } = req.server;
    const body = req.body;
    const transport = await findTransport(db, body.transportId, ownedBy(auth, 't.created_by'));
    if (!transport) throw new AppError('TRANSPORT_NOT_FOUND', { transportId: body.transportId }, 'Transport not found');
    await checkReferences(db, auth, body);
    const attachmentIds = body.attachmentIds ?? [];
    const values = {
      label: body.label ?? `Complaint about transport ${transport.loading_number}`,
      description: body.description ?? null,
      location: body.location ?? null,
      amount_paid: body.amountPaid ?? null,
      time_lost: body.timeLost ?? null,
      transport_id: transport.id,
      customer_id: body.customerId ?? transport.customer_id,
      complaint_type_id: body.complaintTypeId ?? null,
      country_id: auth.countryId,
      created_by: auth.userId,
    };
    // One complaint per transport is the unique constraint's job; a second attempt is told which one exists.
    // Two tries: the existing complaint may be deleted between the violation and its look-up.
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await db.transaction().execute(async (trx) => {
          const row = await insertComplaint(trx, values);
          const linked = await linkAttachments(trx, row.id, auth.userId, attachmentIds);
          const missing = attachmentIds.find((id) => !linked.includes(id));
          if (missing !== undefined) {
            throw new AppError('RESOURCE_NOT_FOUND', { resource: 'complaintAttachment', id: missing }, 'Complaint attachment not found');
          }
          await emitComplaintCreated(trx, row.id);
          return row;
        });
        return {
          message: 'Complaint created',
          result: {
            id: created.id,
            publicId: created.public_id,
            label: created.label,
            status: created.status,
            transportId: created.transport_id,
            createdAt: iso(created.created_at),
          },
        };
      } catch (error) {
        if (!isUniqueViolation(error, 'complaints_transport_id_key')) throw error;
        const existingComplaintId = await complaintOfTransport(db, transport.id);
        if (existingComplaintId !== undefined || attempt >= 2) {
          throw new AppError(
            'COMPLAINT_EXISTS',
            { transportId: transport.id, existingComplaintId: existingComplaintId ?? 0 },
            'A complaint already exists for this transport',
          );
        }
      }
    }
  },

  async listComplaints(req) {
    const auth = caller(req);
    const { page = 1, limit = 10, ...filters } = req.query;
    const { rows, total, extras } = await listPage(req.server.db, readableScope(auth), Object.assign({}, filters, { page, limit }));
    return { message: 'Complaints retrieved', result: { data: rows.map(toListItem), meta: linkedPageMeta(total, page, limit, extras) } };
  },

  async getComplaintById(req) {
    return { message: 'Complaint retrieved', result: await tradeComplaintRepresentations.getComplaintById.read(req) };
  },

  async updateComplaintStatus(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { status, comment = null } = req.body;
    // Staff moving a complaint on the user side are audited as on the administration side.
    await changeStatus(db, auth, id, status, comment, isStaff(auth) ? auditStatusChange(req, id, status, comment) : undefined);
    const row = await findComplaint(db, id, workableComplaints(auth));
    if (!row) throw complaintNotFound(id);
    return {
      message: `Complaint status changed to ${req.body.status}`,
      result: toDetail(row, await attachmentsOf(db, id), auth.accessLevel),
    };
  },

  async updateComplaint(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    await editablePending(req, id);
    await checkReferences(db, auth, req.body);
    if (!(await updateComplaint(db, id, toChanges(req.body), 'pending'))) await refuseChange(req, id);
    const row = (await findComplaint(db, id, ownedComplaints(auth)))!;
    return { message: 'Complaint updated', result: toDetail(row, await attachmentsOf(db, id), auth.accessLevel) };
  },

  async deleteComplaint(req) {
    const { id } = req.params;
    await editablePending(req, id, 'Complaint can no longer be deleted');
    if (!(await deleteComplaint(req.server.db, id, ['PENDING']))) await refuseChange(req, id, 'Complaint can no longer be deleted');
    return { message: 'Complaint deleted', result: null };
  },

  async getComplaintStatusHistory(req) {
    const auth = caller(req);
    const { db } = req.server;
    const complaint = await findState(db, req.params.id, readableBy(auth));
    if (!complaint) throw complaintNotFound(req.params.id);
    return { message: 'Status history retrieved', result: (await historyOf(db, complaint.id)).map(toHistoryEntry) };
  },

  async listComplaintTypes(req) {
    return { message: 'Complaint types retrieved', result: await activeTypes(req.server.db) };
  },
};

type OwnedReq = Req<'updateComplaint'> | Req<'deleteComplaint'>;

/** The complaint must be the caller's (ownership scope, not mere assignment) and still PENDING. */
async function editablePending(req: OwnedReq, id: number, message?: string) {
  const complaint = await findState(req.server.db, id, ownedComplaints(caller(req)));
  if (!complaint) throw complaintNotFound(id);
  if (complaint.status !== 'PENDING') throw notEditable(id, complaint.status, message);
}

/** The guarded write found nothing: the complaint left PENDING (or vanished) since the check. */
async function refuseChange(req: OwnedReq, id: number, message?: string): Promise<never> {
  const status = await statusOf(req.server.db, id);
  if (status === undefined) throw complaintNotFound(id);
  throw notEditable(id, status, message);
}

/** The complaint as its GET answers it (write-safety/representations.ts). */
export const tradeComplaintRepresentations: ModuleRepresentations<'getComplaintById'> = {
  getComplaintById: {
    row: { table: 'complaints', id: (req) => req.params.id },
    async read(req) {
      const auth = caller(req);
      const { db } = req.server;
      const row = await findComplaint(db, req.params.id, readableBy(auth));
      if (!row) throw complaintNotFound(req.params.id);
      return toDetail(row, await attachmentsOf(db, row.id), auth.accessLevel);
    },
  },
};
