import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation } from '../../lib/db-errors.js';
import { iso } from '../../lib/time.js';
import { pageMeta } from '../../lib/paging.js';
import { caller } from '../../lib/identity.js';
import { audit } from '../../lib/audit.js';
import { emitEvent } from '../events/emit-repository.js';
import { toAdminListItem, toAdminTransport, toTransport } from './mappers.js';
import { complaintCount, currentStatus, findVisible, levelOneValidator, listPage, statusHistory } from './repository.js';
import {
  actionMessage,
  ADMIN_EDITABLE,
  checkDateRange,
  checkWindows,
  hasComplaint,
  invalidTransition,
  notEditable,
  NOT_ARCHIVED,
  sameValidator,
  storedState,
  TRANSPORT_WORKFLOW,
  transportNotFound,
  validationLevelOf,
  workflowState,
  wrongRole,
} from './rules.js';
import { transportStats } from './stats-repository.js';
import { loadVisible, reload } from './service.js';
import {
  deleteTransport,
  fieldChanges,
  insertHistory,
  moveState,
  requireCustomer,
  requireVehicleType,
  updateFields,
} from './write-repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

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
    const { rows, total, extras } = await listPage(req.server.db, auth, Object.assign({}, filters, { page, limit }));
    return { message: 'Transports retrieved', result: { data: rows.map(toAdminListItem), meta: pageMeta(total, page, limit, extras) } };
  },

  async getAdminTransportById(req) {
    return { message: 'Transport retrieved', result: await adminTransportRepresentations.getAdminTransportById.read(req) };
  },

  async updateAdminTransport(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const current = await findVisible(db, auth, id);
    if (!current) throw transportNotFound(id);
    if (!ADMIN_EDITABLE.includes(current.status)) throw notEditable(id, current.status);
    checkWindows(req.body);
    if (req.body.vehicleTypeId !== undefined) await requireVehicleType(db, req.body.vehicleTypeId, current.vehicle_type_id);
    const record = await db.transaction().execute(async (trx) => {
      const before = toTransport(await reload(trx, id));
      if (!(await updateFields(trx, id, ADMIN_EDITABLE, fieldChanges(req.body), req.body))) {
        const status = await currentStatus(trx, id);
        throw status === undefined ? transportNotFound(id) : notEditable(id, status);
      }
      await audit(trx, req, { action: 'transport.updated', resource: { type: 'transport', id }, before, after: req.body });
      return reload(trx, id);
    });
    return { message: 'Transport updated', result: toAdminTransport(record, auth.accessLevel) };
  },

  async deleteAdminTransport(req) {
    caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const complaints = await complaintCount(db, id);
    if (complaints > 0) throw hasComplaint(id, complaints);
    try {
      await db.transaction().execute(async (trx) => {
        const before = toTransport(await reload(trx, id));
        if (!(await deleteTransport(trx, id))) throw transportNotFound(id);
        await audit(trx, req, { action: 'transport.deleted', resource: { type: 'transport', id }, before });
      });
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
    const { record, level } = await db.transaction().execute(async (trx) => {
      const current = await findVisible(trx, auth, id);
      if (!current) throw transportNotFound(id);
      const state = workflowState(current.status, current.validation_level);
      const verdict = TRANSPORT_WORKFLOW.check(state, action, auth.accessLevel);
      if (!verdict.ok)
        throw verdict.reason === 'role' ? wrongRole(state, action, verdict.roles) : invalidTransition(state, action, auth.accessLevel);
      const level = validationLevelOf(state, action);
      if (level === 2 && action === 'VALIDATE' && (await levelOneValidator(trx, id)) === auth.userId) throw sameValidator();
      // The state read above is the guard: a concurrent action that got there first makes this match nothing.
      const target = storedState(verdict.to);
      if (!(await moveState(trx, id, current, target))) {
        const now = await findVisible(trx, auth, id);
        throw now === undefined
          ? transportNotFound(id)
          : invalidTransition(workflowState(now.status, now.validation_level), action, auth.accessLevel);
      }
      await insertHistory(trx, {
        transportId: id,
        from: current.status,
        to: target.status,
        action,
        comment: comment ?? null,
        userId: auth.userId,
        validationLevel: level,
      });
      const record = await reload(trx, id);
      await emitEvent(
        trx,
        'transport.status_changed',
        { type: 'transport', id },
        {
          transport: toTransport(record),
          action,
          fromStatus: current.status,
          toStatus: target.status,
          validationLevel: level as 1 | 2 | null,
          comment: comment ?? null,
        },
      );
      await audit(trx, req, {
        action: 'transport.status_changed',
        resource: { type: 'transport', id },
        before: { status: current.status, validationLevel: current.validation_level },
        after: { status: target.status, validationLevel: level },
        details: { action, comment: comment ?? null },
      });
      return { record, level };
    });
    return { message: actionMessage(action, level), result: toAdminTransport(record, auth.accessLevel) };
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
        validationLevel: h.validation_level as 1 | 2 | null,
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
    await requireCustomer(db, auth, customerId);
    const record = await db.transaction().execute(async (trx) => {
      const before = toTransport(await reload(trx, id)).customer?.id ?? null;
      if (!(await updateFields(trx, id, NOT_ARCHIVED, { customer_id: customerId }, { customerId }))) {
        const status = await currentStatus(trx, id);
        throw status === undefined ? transportNotFound(id) : notEditable(id, status);
      }
      await audit(trx, req, {
        action: 'transport.customer_assigned',
        resource: { type: 'transport', id },
        before: { customerId: before },
        after: { customerId },
      });
      return reload(trx, id);
    });
    return { message: 'Customer assigned', result: toAdminTransport(record, auth.accessLevel) };
  },

  async getTransportStats(req) {
    const auth = caller(req);
    const days = req.query.days ?? 30;
    return { message: 'Transport statistics retrieved', result: await transportStats(req.server.db, auth, days) };
  },
};

/** The transport as its administration GET answers it (write-safety/representations.ts). */
export const adminTransportRepresentations: ModuleRepresentations<'getAdminTransportById'> = {
  getAdminTransportById: {
    row: { table: 'transports', id: (req) => req.params.id },
    locksRow: true,
    async read(req, options) {
      const auth = caller(req);
      return toAdminTransport(await loadVisible(req.server.db, auth, req.params.id, options?.forUpdate), auth.accessLevel);
    },
  },
};
