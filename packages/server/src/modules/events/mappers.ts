import type { components } from '@transport-ops/contract';
import { iso } from '../../lib/time.js';
import type { EventRow } from './repository.js';

/** An event exactly as its deliveries carry it (same fields, same order). */
export function toEvent(row: EventRow): components['schemas']['Event'] {
  return {
    id: row.public_id,
    type: row.type,
    occurredAt: iso(row.occurred_at),
    resource: { type: row.resource_type, id: row.resource_id },
    data: row.data,
  };
}
