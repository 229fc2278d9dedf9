import { type Kysely, sql, type SqlBool } from 'kysely';
import type { ComplaintStatus, Database } from '../../db/schema.js';
import { emitEvent } from '../events/emit-repository.js';
import { toDetail } from './mappers.js';
import { attachmentsOf, findComplaint } from './repository.js';

type Db = Kysely<Database>;

/** The complaint as `getComplaintById` answers it, read in the writer's transaction. */
async function snapshot(trx: Db, id: number) {
  const row = await findComplaint(trx, id, sql<SqlBool>`true`);
  if (!row) throw new Error(`complaint ${id} vanished inside its own transaction`);
  // An event has no caller: its `allowedStatuses` are every next status of the workflow (any role's).
  return toDetail(row, await attachmentsOf(trx, id), 'super_admin');
}

/** `complaint.created`, in the creating transaction. */
export async function emitComplaintCreated(trx: Db, id: number): Promise<void> {
  await emitEvent(trx, 'complaint.created', { type: 'complaint', id }, await snapshot(trx, id));
}

/** `complaint.status_changed`, in the transaction that moved it. */
export async function emitComplaintStatusChanged(
  trx: Db,
  id: number,
  fromStatus: ComplaintStatus,
  toStatus: ComplaintStatus,
  comment: string | null,
): Promise<void> {
  await emitEvent(
    trx,
    'complaint.status_changed',
    { type: 'complaint', id },
    { complaint: await snapshot(trx, id), fromStatus, toStatus, comment },
  );
}
