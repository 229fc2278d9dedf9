import type { components } from '@transport-ops/contract';
import type { Kysely } from 'kysely';
import type { ComplaintNotification, Database } from '../../db/schema.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { iso } from '../../lib/time.js';

export function toNotification(n: ComplaintNotification): components['schemas']['ComplaintNotification'] {
  return {
    id: n.id,
    complaintId: n.complaint_id,
    customerId: n.customer_id,
    channel: n.channel,
    recipient: n.recipient,
    subject: n.subject ?? '',
    body: n.body,
    status: n.status,
    attempts: n.attempts,
    lastError: n.last_error,
    sentAt: n.sent_at === null ? null : iso(n.sent_at),
    createdAt: iso(n.created_at),
  };
}

function listQuery(db: Kysely<Database>, f: { status?: ComplaintNotification['status']; channel?: ComplaintNotification['channel'] }) {
  let query = db.selectFrom('complaint_notifications').selectAll();
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.channel !== undefined) query = query.where('channel', '=', f.channel);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc');
}

export const notificationHandlers: ModuleHandlers<'listNotifications'> = {
  async listNotifications(req) {
    const { page = 1, limit = 10, ...filters } = req.query;
    const { rows, total } = await fetchPage(listQuery(req.server.db, filters), page, limit);
    return { message: 'Notifications retrieved', result: { data: rows.map(toNotification), meta: pageMeta(total, page, limit) } };
  },
};
