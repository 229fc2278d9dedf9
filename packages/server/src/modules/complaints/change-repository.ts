import type { Kysely } from 'kysely';
import type { ComplaintStatus, ComplaintUpdate, Database, NewComplaint } from '../../db/schema.js';

/* Writes of the complaint module; several run inside one transaction (the `trx` argument). */

type Db = Kysely<Database>;

/** Inserts the complaint (status PENDING by default) and its first history entry; run in a transaction. */
export async function insertComplaint(trx: Db, values: NewComplaint) {
  const row = await trx
    .insertInto('complaints')
    .values(values)
    .returning(['id', 'public_id', 'label', 'status', 'transport_id', 'created_at'])
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('complaint_status_history')
    .values({ complaint_id: row.id, status: row.status, comment: null, created_by: values.created_by, created_by_type: 'AGENT' })
    .execute();
  return row;
}

/** What the complaint's author or staff may change (status and assignment have operations of their own). */
export type ComplaintChanges = Pick<
  ComplaintUpdate,
  'label' | 'description' | 'location' | 'amount_paid' | 'time_lost' | 'customer_id' | 'complaint_type_id'
>;

/**
 * Applies the changes while the complaint is still in a state that allows them: `PENDING` (user
 * side) or anything but `CLOSED` (staff). The guard sits in the WHERE, so a concurrent status
 * change cannot slip between the check and the write. False when nothing was updated.
 */
export async function updateComplaint(db: Db, id: number, changes: ComplaintChanges, guard: 'pending' | 'notClosed') {
  const result = await db
    .updateTable('complaints')
    .set(Object.assign({}, changes, { updated_at: new Date() }))
    .where('id', '=', id)
    .where('status', guard === 'pending' ? '=' : '<>', guard === 'pending' ? 'PENDING' : 'CLOSED')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes the complaint if its status is one of `statuses` (guarded in the DELETE itself); false otherwise. */
export async function deleteComplaint(db: Db, id: number, statuses: ComplaintStatus[]): Promise<boolean> {
  const result = await db.deleteFrom('complaints').where('id', '=', id).where('status', 'in', statuses).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function assign(db: Db, id: number, userId: number | null): Promise<boolean> {
  const result = await db
    .updateTable('complaints')
    .set({ assigned_to: userId, updated_at: new Date() })
    .where('id', '=', id)
    .where('status', '<>', 'CLOSED')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Moves the complaint from `from` to `to`; false when its status is no longer `from` (a concurrent change won). */
export async function moveStatus(trx: Db, id: number, from: ComplaintStatus, to: ComplaintStatus, at: Date): Promise<boolean> {
  const resolved = to === 'RESOLVED' ? { resolved_at: at } : to === 'REOPENED' ? { resolved_at: null } : {};
  const result = await trx
    .updateTable('complaints')
    .set({ status: to, updated_at: at, ...resolved })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function addHistory(trx: Db, complaintId: number, status: ComplaintStatus, comment: string | null, userId: number, at: Date) {
  await trx
    .insertInto('complaint_status_history')
    .values({ complaint_id: complaintId, status, comment, created_by: userId, created_by_type: 'AGENT', created_at: at })
    .execute();
}

/** Records the resolution message for the customer (e-mail when they have one, else SMS); none without a contact. */
export async function queueResolutionNotice(
  trx: Db,
  complaint: { id: number; public_id: string; label: string; customer_id: number | null },
  comment: string | null,
  at: Date,
): Promise<void> {
  if (complaint.customer_id === null) return;
  const customer = await trx
    .selectFrom('actors')
    .select(['id', 'first_name', 'last_name', 'email', 'phone'])
    .where('id', '=', complaint.customer_id)
    .executeTakeFirst();
  const recipient = customer?.email ?? customer?.phone ?? null;
  if (!customer || recipient === null) return;
  const body = [
    `Hello ${customer.first_name} ${customer.last_name},`,
    `Your complaint ${complaint.public_id} has been resolved.`,
    ...(comment ? [comment] : []),
  ].join('\n\n');
  await trx
    .insertInto('complaint_notifications')
    .values({
      complaint_id: complaint.id,
      customer_id: customer.id,
      channel: customer.email ? 'EMAIL' : 'SMS',
      recipient,
      subject: `Your complaint has been resolved: ${complaint.label}`,
      body,
      status: 'QUEUED',
      created_at: at,
    })
    .execute();
}
