import type { components } from '@transport-ops/contract';
import type { ComplaintNotification } from '../../db/schema.js';
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
