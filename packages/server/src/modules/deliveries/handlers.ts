import type { components } from '@transport-ops/contract';
import type { Readable } from 'node:stream';
import { AppError, ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { readStored, storeThen } from '../../lib/file-store.js';
import { caller } from '../../lib/identity.js';
import { iso } from '../../lib/time.js';
import { screenUploads } from '../../lib/uploads.js';
import { emitEvent } from '../events/emit-repository.js';
import { findVisible } from '../transports/repository.js';
import { transportNotFound } from '../transports/rules.js';
import { completeOnDelivery, DELIVERABLE } from './completion.js';
import { hasProof, insertFiles, insertProof, lockVisibleTransport, type ProofRow, proofOf, receiptTransport } from './repository.js';
import { receiptPdf } from './receipt.js';

type ProofOfDelivery = components['schemas']['ProofOfDelivery'];

export const receiptUrl = (transportId: number) => `/trade/transports/${transportId}/proof-of-delivery/receipt`;

export function toProof(p: ProofRow): ProofOfDelivery {
  return {
    id: p.id,
    transportId: p.transport_id,
    receiverName: p.receiver_name,
    note: p.note,
    deliveredAt: iso(p.delivered_at),
    signature: { mimeType: p.signature_mime_type as 'image/png' | 'image/jpeg', size: p.signature_size },
    photoCount: Number(p.photo_count ?? 0),
    completedTransport: p.completed_transport,
    recordedBy: { id: p.user_id, username: p.username },
    receiptUrl: receiptUrl(p.transport_id),
  };
}

const notDeliverable = (id: number, status: string) =>
  new AppError(
    'NOT_EDITABLE',
    { resource: 'transport', id, status },
    'A proof of delivery is recorded only for a transport IN_PROGRESS or COMPLETED',
  );
const alreadyRecorded = (id: number) =>
  new AppError(
    'ALREADY_EXISTS',
    { resource: 'proof of delivery', field: 'transportId', value: String(id) },
    'This transport has a proof of delivery already',
  );

async function bytesOf(body: Uint8Array | Readable): Promise<Buffer> {
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export const deliveryHandlers: ModuleHandlers<'createProofOfDelivery' | 'getProofOfDeliveryReceipt'> = {
  async createProofOfDelivery(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const receiverName = req.body.receiverName.trim();
    const note = req.body.note?.trim() || null;
    if (receiverName === '') throw new ListError(400, 'Validation failed', ['body/receiverName must not be blank']);
    // Checked before any file is stored; checked again under the lock below (a concurrent request).
    const visible = await findVisible(db, auth, id);
    if (!visible) throw transportNotFound(id);
    if (!DELIVERABLE.includes(visible.status)) throw notDeliverable(id, visible.status);
    if (await hasProof(db, id)) throw alreadyRecorded(id);
    const { accepted, rejected } = screenUploads(req);
    if (rejected.length > 0)
      throw new AppError('UPLOAD_REJECTED', { rejected }, 'A file of the proof of delivery was refused; nothing was stored');
    // The schema allows one signature; photos keep their order.
    const files = [...accepted.filter((f) => f.field === 'signature'), ...accepted.filter((f) => f.field === 'photos')];

    const proof = await storeThen(
      req.server.files,
      files.map((f) => f.spooled),
      (stored) =>
        db.transaction().execute(async (trx) => {
          const transport = await lockVisibleTransport(trx, auth, id);
          if (!transport) throw transportNotFound(id);
          if (!DELIVERABLE.includes(transport.status)) throw notDeliverable(id, transport.status);
          if (await hasProof(trx, id)) throw alreadyRecorded(id);
          const completed = await completeOnDelivery(trx, auth, transport, receiverName);
          const { id: proofId } = await insertProof(trx, {
            transportId: id,
            receiverName,
            note,
            completedTransport: completed,
            recordedBy: auth.userId,
          });
          await insertFiles(
            trx,
            files.map((f, position) => ({
              proof_id: proofId,
              position,
              filename: f.filename,
              mime_type: f.detectedType,
              size: f.size,
              ...stored[position]!,
            })),
          );
          const proof = toProof((await proofOf(trx, id))!);
          await emitEvent(
            trx,
            'transport.delivered',
            { type: 'transport', id },
            { transportId: id, status: 'COMPLETED', proofOfDelivery: proof },
          );
          return proof;
        }),
    );
    return {
      message: proof.completedTransport ? 'Proof of delivery recorded; transport completed' : 'Proof of delivery recorded',
      result: proof,
    };
  },

  async getProofOfDeliveryReceipt(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const transport = await receiptTransport(db, id, auth);
    if (!transport) throw transportNotFound(id);
    const proof = await proofOf(db, id);
    if (!proof) throw new AppError('RESOURCE_NOT_FOUND', { resource: 'proof of delivery', id }, 'This transport has no proof of delivery');
    const signature = await readStored(
      req,
      { table: 'proof_of_delivery_files', id: proof.signature_id, size: proof.signature_size, storage_key: proof.signature_storage_key },
      () => new AppError('DOCUMENT_CONTENT_MISSING', { documentId: proof.id }, 'Document content is missing'),
    );
    const body = await receiptPdf({
      loadingNumber: transport.loading_number,
      route: { from: transport.loading_point, to: transport.unloading_point ?? 'not recorded' },
      product:
        [transport.product_label, transport.product_quantity === null ? null : `quantity ${transport.product_quantity}`]
          .filter(Boolean)
          .join(', ') || 'not recorded',
      vehiclePlate: transport.vehicle_plate_number ?? 'not recorded',
      shipper: [`${transport.charger_first_name} ${transport.charger_last_name}`, transport.charger_phone].filter(Boolean).join(', '),
      customer: transport.customer_first_name === null ? null : `${transport.customer_first_name} ${transport.customer_last_name}`,
      createdAt: transport.created_at,
      deliveredAt: proof.delivered_at,
      receiverName: proof.receiver_name,
      note: proof.note,
      recordedBy: proof.username,
      signature: await bytesOf(signature),
      photoCount: Number(proof.photo_count ?? 0),
    });
    return { file: { filename: `delivery-${transport.loading_number}.pdf`, contentType: 'application/pdf', body } };
  },
};
