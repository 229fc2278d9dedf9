import type { components } from '@transport-ops/contract';
import { iso } from '../../lib/time.js';
import type { DeliveryRow, subscriptionColumns } from './repository.js';
import type { WebhookSubscriptionsTable } from '../../db/schema.js';
import type { Selectable } from 'kysely';

type S = components['schemas'];
type SubscriptionRow = Pick<Selectable<WebhookSubscriptionsTable>, (typeof subscriptionColumns)[number]>;

export function toSubscription(row: SubscriptionRow): S['WebhookSubscription'] {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    isActive: row.is_active,
    failingSince: iso(row.failing_since),
    disabledAt: iso(row.disabled_at),
    disabledReason: row.disabled_reason,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toDelivery(row: DeliveryRow): S['WebhookDelivery'] {
  return {
    id: Number(row.id),
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.response_status,
    latencyMs: row.latency_ms,
    lastError: row.last_error,
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: row.status === 'PENDING' ? iso(row.next_attempt_at) : null,
    deliveredAt: iso(row.delivered_at),
    createdAt: iso(row.created_at),
  };
}
