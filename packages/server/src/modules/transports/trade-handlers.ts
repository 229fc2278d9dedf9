import { atomically } from '../../db/request-transaction.js';
import { audit, isStaff } from '../../lib/audit.js';
import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation } from '../../lib/db-errors.js';
import { readStored, storeThen } from '../../lib/file-store.js';
import { pageMeta } from '../../lib/paging.js';
import { caller } from '../../lib/identity.js';
import { screenUploads } from '../../lib/uploads.js';
import { emitEvent } from '../events/emit-repository.js';
import { documentUrl, toListItem, toTransport } from './mappers.js';
import { activeVehicleTypes, complaintCount, currentStatus, findVisible, findVisibleDocument, listPage } from './repository.js';
import { checkDateRange, checkWindows, hasComplaint, NOT_ARCHIVED, notEditable, transportNotFound, USER_EDITABLE } from './rules.js';
import { loadVisible, reload } from './service.js';
import {
  checkNewCustomer,
  createTransport,
  deleteTransport,
  fieldChanges,
  insertCustomer,
  insertDocument,
  lockOwnedTransport,
  requireCustomer,
  requireVehicleType,
  updateFields,
} from './write-repository.js';
import { lockedRepresentation, type ModuleRepresentations } from '../../http/write-safety/representations.js';

export type TradeTransportOps =
  | 'createTransport'
  | 'listTransports'
  | 'getTransportById'
  | 'updateTransport'
  | 'deleteTransport'
  | 'listVehicleTypes'
  | 'uploadTransportDocuments'
  | 'downloadTransportDocument';

export const tradeTransportHandlers: ModuleHandlers<TradeTransportOps> = {
  async createTransport(req) {
    const auth = caller(req);
    const { db } = req.server;
    const body = req.body;
    checkNewCustomer(body.newCustomer);
    checkWindows(body);
    await requireVehicleType(db, body.vehicleTypeId);
    if (body.customerId != null) await requireCustomer(db, auth, body.customerId);
    const id = await createTransport(db, auth.userId, body);
    return { message: 'Transport created', result: toTransport(await reload(db, id)) };
  },

  async listTransports(req) {
    const auth = caller(req);
    const { page = 1, limit = 10, ...filters } = req.query;
    checkDateRange(filters);
    const { rows, total, extras } = await listPage(req.server.db, auth, Object.assign({}, filters, { page, limit }));
    return { message: 'Transports retrieved', result: { data: rows.map(toListItem), meta: pageMeta(total, page, limit, extras) } };
  },

  async getTransportById(req) {
    return { message: 'Transport retrieved', result: await tradeTransportRepresentations.getTransportById.read(req) };
  },

  async updateTransport(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const body = req.body;
    // Under If-Match, the transport as its precondition read it, its row locked: no second load.
    const current = lockedRepresentation(req, 'getTransportById') ?? (await findVisible(db, auth, id));
    if (!current) throw transportNotFound(id);
    if (!USER_EDITABLE.includes(current.status)) throw notEditable(id, current.status);
    checkNewCustomer(body.newCustomer);
    checkWindows(body);
    if (body.vehicleTypeId !== undefined) await requireVehicleType(db, body.vehicleTypeId);
    if (body.customerId != null) await requireCustomer(db, auth, body.customerId);
    // A change made by staff (team manager and above) is audited, with the fields before and after.
    const audited = isStaff(auth);
    // Every error propagates: inside a request transaction (If-Match, a key) no savepoint is needed.
    await atomically(db, async (trx) => {
      const before = audited ? toTransport(await reload(trx, id)) : null;
      const set = fieldChanges(body);
      if (body.newCustomer) set.customer_id = await insertCustomer(trx, body.newCustomer);
      else if (body.customerId !== undefined) set.customer_id = body.customerId;
      if (!(await updateFields(trx, id, USER_EDITABLE, set, body))) {
        const status = await currentStatus(trx, id);
        throw status === undefined ? transportNotFound(id) : notEditable(id, status);
      }
      if (before) {
        // The record after the change: the entry keeps the fields that differ (a customer set by id, a recomputed total).
        const after = toTransport(await reload(trx, id));
        await audit(trx, req, { action: 'transport.updated', resource: { type: 'transport', id }, before, after });
      }
    });
    return { message: 'Transport updated', result: toTransport(await reload(db, id)) };
  },

  async deleteTransport(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const current = await findVisible(db, auth, id);
    if (!current) throw transportNotFound(id);
    if (!USER_EDITABLE.includes(current.status)) throw notEditable(id, current.status, 'deleted');
    const complaints = await complaintCount(db, id);
    if (complaints > 0) throw hasComplaint(id, complaints);
    try {
      await db.transaction().execute(async (trx) => {
        // A deletion by staff is audited with the record as it was.
        const before = isStaff(auth) ? toTransport(await reload(trx, id)) : null;
        // The status guard keeps an acted-upon transport.
        if (!(await deleteTransport(trx, id, USER_EDITABLE))) {
          const status = await currentStatus(trx, id);
          throw status === undefined ? transportNotFound(id) : notEditable(id, status, 'deleted');
        }
        if (before) await audit(trx, req, { action: 'transport.deleted', resource: { type: 'transport', id }, before });
      });
    } catch (error) {
      // A complaint filed between the check and the delete: the foreign key refuses it.
      if (isForeignKeyViolation(error, 'complaints_transport_id_fkey')) throw hasComplaint(id, await complaintCount(db, id));
      throw error;
    }
    return { message: 'Transport deleted', result: null };
  },

  async listVehicleTypes(req) {
    caller(req);
    const rows = await activeVehicleTypes(req.server.db);
    return {
      message: 'Vehicle types retrieved',
      result: rows.map((v) => ({
        id: v.id,
        name: v.name,
        description: v.description,
        maxWeight: v.max_weight,
        category: v.category,
        isActive: v.is_active,
      })),
    };
  },

  async uploadTransportDocuments(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { transportId, documentType } = req.body;
    const { accepted, rejected } = screenUploads(req);
    const files = accepted.map((f) => f.spooled);
    const uploaded = await storeThen(req.server.files, files, (stored) =>
      db.transaction().execute(async (trx) => {
        // Locked so that the transport cannot be archived or deleted while its documents are stored.
        const transport = await lockOwnedTransport(trx, auth, transportId);
        if (!transport) throw transportNotFound(transportId);
        if (!NOT_ARCHIVED.includes(transport.status)) throw notEditable(transportId, transport.status);
        if (accepted.length === 0) throw new AppError('UPLOAD_REJECTED', { rejected }, 'No file was accepted');
        const rows = [];
        for (const [i, file] of accepted.entries()) {
          const row = await insertDocument(trx, {
            transport_id: transportId,
            type: documentType,
            filename: file.filename,
            mime_type: file.detectedType,
            size: file.size,
            ...stored[i]!,
            uploaded_by: auth.userId,
          });
          rows.push(row);
        }
        const added = new Set(rows.map((r) => r.id));
        const documents = toTransport(await reload(trx, transportId)).documents.filter((d) => added.has(d.id));
        await emitEvent(trx, 'transport.document_added', { type: 'transport', id: transportId }, { transportId, documents });
        return rows;
      }),
    );
    return {
      message: `${uploaded.length} of ${uploaded.length + rejected.length} files uploaded`,
      result: {
        uploaded: uploaded.map((d) => ({
          id: d.id,
          filename: d.filename,
          type: d.mime_type as 'application/pdf' | 'image/jpeg' | 'image/png',
          size: d.size,
          url: documentUrl(d.id),
        })),
        errors: rejected,
      },
    };
  },

  async downloadTransportDocument(req) {
    const auth = caller(req);
    const { id } = req.params;
    const doc = await findVisibleDocument(req.server.db, auth, id);
    if (!doc) throw new AppError('DOCUMENT_NOT_FOUND', { documentId: id }, 'Document not found');
    const body = await readStored(
      req,
      { table: 'transport_documents', id, ...doc },
      () => new AppError('DOCUMENT_CONTENT_MISSING', { documentId: id }, 'Document content is missing'),
    );
    return { file: { filename: doc.filename, contentType: doc.mime_type, body, size: doc.size } };
  },
};

/** The transport as its GET answers it (write-safety/representations.ts). */
export const tradeTransportRepresentations: ModuleRepresentations<'getTransportById'> = {
  getTransportById: {
    row: { table: 'transports', id: (req) => req.params.id },
    locksRow: true,
    async read(req, options) {
      return toTransport(await loadVisible(req.server.db, caller(req), req.params.id, options?.forUpdate));
    },
  },
};
