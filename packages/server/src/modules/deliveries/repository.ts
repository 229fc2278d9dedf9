import type { Kysely } from 'kysely';
import type { Database, TransportStatus } from '../../db/schema.js';
import type { AuthContext } from '../../lib/identity.js';
import { ownedBy } from '../../lib/scope.js';

type Db = Kysely<Database>;

/** The transport, locked against a concurrent status change, when the caller may see it. */
export const lockVisibleTransport = (trx: Db, auth: AuthContext, id: number) =>
  trx
    .selectFrom('transports as t')
    .select(['t.id', 't.status', 't.validation_level'])
    .where('t.id', '=', id)
    .where(ownedBy(auth, 't.created_by'))
    .forUpdate()
    .executeTakeFirst();

export const hasProof = async (db: Db, transportId: number) =>
  (await db.selectFrom('proofs_of_delivery').select('id').where('transport_id', '=', transportId).executeTakeFirst()) !== undefined;

export interface NewProof {
  transportId: number;
  receiverName: string;
  note: string | null;
  completedTransport: boolean;
  recordedBy: number;
}

export const insertProof = (trx: Db, p: NewProof) =>
  trx
    .insertInto('proofs_of_delivery')
    .values({
      transport_id: p.transportId,
      receiver_name: p.receiverName,
      note: p.note,
      completed_transport: p.completedTransport,
      recorded_by: p.recordedBy,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

export interface NewProofFile {
  proof_id: number;
  position: number;
  filename: string;
  mime_type: string;
  size: number;
  content: Uint8Array | null;
  storage_key: string | null;
}

export async function insertFiles(trx: Db, files: NewProofFile[]): Promise<void> {
  if (files.length > 0) await trx.insertInto('proof_of_delivery_files').values(files).execute();
}

/** A transport's proof, with its signature's metadata, photo count and recorder. */
export const proofOf = (db: Db, transportId: number) =>
  db
    .selectFrom('proofs_of_delivery as p')
    .innerJoin('users as u', 'u.id', 'p.recorded_by')
    .innerJoin('proof_of_delivery_files as s', (j) => j.onRef('s.proof_id', '=', 'p.id').on('s.position', '=', 0))
    .select((eb) => [
      'p.id',
      'p.transport_id',
      'p.receiver_name',
      'p.note',
      'p.delivered_at',
      'p.completed_transport',
      'u.id as user_id',
      'u.username',
      's.id as signature_id',
      's.mime_type as signature_mime_type',
      's.size as signature_size',
      's.storage_key as signature_storage_key',
      eb
        .selectFrom('proof_of_delivery_files as f')
        .select((f) => f.fn.countAll<number>().as('n'))
        .whereRef('f.proof_id', '=', 'p.id')
        .where('f.position', '>', 0)
        .as('photo_count'),
    ])
    .where('p.transport_id', '=', transportId)
    .executeTakeFirst();
export type ProofRow = NonNullable<Awaited<ReturnType<typeof proofOf>>>;

/** The parties and places of a transport, for the receipt (the caller's scope was checked). */
export const receiptTransport = (db: Db, id: number, auth: AuthContext) =>
  db
    .selectFrom('transports as t')
    .leftJoin('actors as c', 'c.id', 't.customer_id')
    .select([
      't.id',
      't.loading_number',
      't.status',
      't.charger_first_name',
      't.charger_last_name',
      't.charger_phone',
      't.loading_point',
      't.unloading_point',
      't.vehicle_plate_number',
      't.product_label',
      't.product_quantity',
      't.created_at',
      'c.first_name as customer_first_name',
      'c.last_name as customer_last_name',
    ])
    .where('t.id', '=', id)
    .where(ownedBy(auth, 't.created_by'))
    .executeTakeFirst();

export type { TransportStatus };
