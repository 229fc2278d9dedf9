import type { components } from '@transport-ops/contract';
import type { LiveEventType } from '../../db/schema.js';
import type { EventData, EventType } from '../events/emit-repository.js';

type Schemas = components['schemas'];
export type LiveEvent = Schemas['TransportLiveEvent'];

/**
 * The live-stream event a webhook event makes, if any: every event of a transport that a
 * dispatch screen follows also enters the transport's live stream, in the same transaction
 * (events/emit-repository.ts calls this for each event it records). Positions are not webhook
 * events: the ingest appends them itself.
 */
export function liveEventOf<T extends EventType>(
  type: T,
  data: EventData[T],
): { transportId: number; type: LiveEventType; data: unknown } | null {
  switch (type) {
    case 'transport.status_changed': {
      const d = data as EventData['transport.status_changed'];
      const status: Schemas['TransportLiveStatus'] = {
        transportId: d.transport.id,
        action: d.action,
        fromStatus: d.fromStatus,
        toStatus: d.toStatus,
        validationLevel: d.validationLevel,
        comment: d.comment,
      };
      return { transportId: d.transport.id, type: 'status', data: status };
    }
    case 'transport.milestone_recorded': {
      const d = data as EventData['transport.milestone_recorded'];
      return { transportId: d.transportId, type: 'milestone', data: d };
    }
    case 'transport.eta_changed': {
      const d = data as EventData['transport.eta_changed'];
      return { transportId: d.transportId, type: 'eta', data: d };
    }
    case 'transport.delivered': {
      const d = data as EventData['transport.delivered'];
      return { transportId: d.transportId, type: 'delivered', data: d };
    }
    default:
      return null;
  }
}

/** One SSE frame: the data is one line of JSON (JSON never contains a raw line break). */
export const frame = (id: number, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A frame whose data is already JSON text (as read from the database, serialized once for every subscriber). */
export const frameOfJson = (id: number, event: string, json: string) => `id: ${id}\nevent: ${event}\ndata: ${json}\n\n`;
