import type { components } from '@transport-ops/contract';
import { iso } from '../../lib/time.js';
import type { MilestoneRow, PositionRow } from './repository.js';

type Schemas = components['schemas'];

export const toPosition = (p: PositionRow): Schemas['TransportPosition'] => ({
  latitude: p.latitude,
  longitude: p.longitude,
  recordedAt: iso(p.recorded_at),
  speedKmh: p.speed_kmh,
  headingDeg: p.heading_deg,
  accuracyM: p.accuracy_m,
});

export function toMilestone(m: MilestoneRow): Schemas['TransportMilestone'] {
  return {
    id: m.id,
    transportId: m.transport_id,
    type: m.type,
    occurredAt: iso(m.occurred_at),
    note: m.note,
    position: m.latitude === null || m.longitude === null ? null : { latitude: m.latitude, longitude: m.longitude },
    complaintId: m.complaint_id,
    statusChange:
      m.status_action === null || m.from_status === null || m.to_status === null
        ? null
        : { action: m.status_action as Schemas['TransportAction'], fromStatus: m.from_status, toStatus: m.to_status },
    createdAt: iso(m.created_at),
  };
}

export const toWindow = (start: Date | null, end: Date | null): Schemas['TimeWindow'] | null =>
  start === null || end === null ? null : { start: iso(start), end: iso(end) };
