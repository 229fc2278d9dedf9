import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation } from '../../lib/db-errors.js';
import { iso } from '../../lib/time.js';
import { pageMeta } from '../../lib/paging.js';
import { caller } from '../../plugins/security.js';
import { toAdminListItem, toAdminTransport } from './mappers.js';
import { complaintCount, currentStatus, findVisible, listPage, statusHistory } from './repository.js';
import {
  ACTION_MESSAGES,
  ADMIN_EDITABLE,
  hasComplaint,
  invalidTransition,
  notEditable,
  NOT_ARCHIVED,
  TRANSITIONS,
  transportNotFound,
} from './rules.js';
import { transportStats } from './stats.js';
import { checkDateRange, reload } from './trade-handlers.js';
import { fieldChanges, insertHistory, requireCustomer, requireVehicleType, updateFields } from './writes.js';

export type AdminTransportOps =
  | 'listAdminTransports'
  | 'getAdminTransportById'
  | 'updateAdminTransport'
  | 'deleteAdminTransport'
  | 'applyTransportAction'
  | 'getTransportStatusHistory'
  | 'assignTransportCustomer'
  | 'getTransportStats';

export const adminTransportHandlers: ModuleHandlers<AdminTransportOps> = {
  async listAdminTransports(req) {
    const auth = caller(req);
    const { page = 1, limit = 10, ...filters } = req.query;
    checkDateRange(filters);
    const { rows, total, extras } = await listPage(req.server.db, auth, { ...filters, page, limit });
    return { message: 'Transports retrieved', result: { data: rows.map(toAdminListItem), meta: pageMeta(total, page, limit, extras) } };
  },

  async getAdminTransportById(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    if (!(await findVisible(db, auth, id))) throw transportNotFound(id);
    return { message: 'Transport retrieved', result: toAdminTransport(await reload(db, id)) };
  },

  async updateAdminTransport(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const current = await findVisible(db, auth, id);
    if (!current) throw transportNotFound(id);
    if (!ADMIN_EDITABLE.includes(current.status)) throw notEditable(id, current.status);
    if (req.body.vehicleTypeId !== undefined) await requireVehicleType(db, req.body.vehicleTypeId, current.vehicle_type_id);
    const record = await db.transaction().execute(async (trx) => {
      if (!(await updateFields(trx, id, ADMIN_EDITABLE, fieldChanges(req.body), req.body))) {
        const status = await currentStatus(trx, id);
        throw status === undefined ? transportNotFound(id) : notEditable(id, status);
      }
      return reload(trx, id);
    });
    return { message: 'Transport updated', result: toAdminTransport(record) };
  },

  async deleteAdminTransport(req) {
    caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const complaints = await complaintCount(db, id);
    if (complaints > 0) throw hasComplaint(id, complaints);
    try {
      const deleted = await db.deleteFrom('transports').where('id', '=', id).returning('id').executeTakeFirst();
      if (!deleted) throw transportNotFound(id);
    } catch (error) {
      if (isForeignKeyViolation(error, 'complaints_transport_id_fkey')) throw hasComplaint(id, await complaintCount(db, id));
      throw error;
    }
    return { message: 'Transport deleted', result: null };
  },

  async applyTransportAction(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { action, comment } = req.body;
    const record = await db.transaction().execute(async (trx) => {
      const current = await findVisible(trx, auth, id);
      if (!current) throw transportNotFound(id);
      const target = TRANSITIONS[current.status][action];
      if (target === undefined) throw invalidTransition(current.status, action);
      // The status read above is the guard: a concurrent action that got there first makes this match nothing.
      const updated = await trx
        .updateTable('transports')
        .set({ status: target, updated_at: new Date() })
        .where('id', '=', id)
        .where('status', '=', current.status)
        .returning('id')
        .executeTakeFirst();
      if (!updated) {
        const status = await currentStatus(trx, id);
        throw status === undefined ? transportNotFound(id) : invalidTransition(status, action);
      }
      await insertHistory(trx, { transportId: id, from: current.status, to: target, action, comment: comment ?? null, userId: auth.userId });
      return reload(trx, id);
    });
    return { message: ACTION_MESSAGES[action], result: toAdminTransport(record) };
  },

  async getTransportStatusHistory(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    if (!(await findVisible(db, auth, id))) throw transportNotFound(id);
    const rows = await statusHistory(db, id);
    return {
      message: 'Status history retrieved',
      result: rows.map((h) => ({
        id: h.id,
        transportId: h.transport_id,
        fromStatus: h.from_status,
        toStatus: h.to_status,
        action: h.action,
        comment: h.comment,
        createdBy: { id: h.user_id, name: h.user_name },
        createdAt: iso(h.created_at),
      })),
    };
  },

  async assignTransportCustomer(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { customerId } = req.body;
    const current = await findVisible(db, auth, id);
    if (!current) throw transportNotFound(id);
    if (!NOT_ARCHIVED.includes(current.status)) throw notEditable(id, current.status);
    await requireCustomer(db, customerId);
    const record = await db.transaction().execute(async (trx) => {
      if (!(await updateFields(trx, id, NOT_ARCHIVED, { customer_id: customerId }, { customerId }))) {
        const status = await currentStatus(trx, id);
        throw status === undefined ? transportNotFound(id) : notEditable(id, status);
      }
      return reload(trx, id);
    });
    return { message: 'Customer assigned', result: toAdminTransport(record) };
  },

  async getTransportStats(req) {
    const auth = caller(req);
    const days = req.query.days ?? 30;
    return { message: 'Transport statistics retrieved', result: await transportStats(req.server.db, auth, days) };
  },
};
