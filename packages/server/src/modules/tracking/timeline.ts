import type { components } from '@transport-ops/contract';
import type { MilestoneType, TransportStatus } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import { toMilestone } from './mappers.js';
import type { MilestoneRow } from './repository.js';
import type { TimelineCursor, TimelineRow } from './timeline-repository.js';

type Entry = components['schemas']['TransportTimelineEntry'];

export const encodeCursor = (row: TimelineRow): string =>
  Buffer.from(JSON.stringify({ t: row.at, r: row.rank, i: Number(row.record_id) })).toString('base64url');

const CURSOR_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The keyset a cursor holds; undefined when the text is not a cursor of this list. */
export function decodeCursor(text: string): TimelineCursor | undefined {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { t?: unknown; r?: unknown; i?: unknown };
    if (typeof c.t !== 'string' || !CURSOR_AT.test(c.t) || !Number.isInteger(c.r) || !Number.isSafeInteger(c.i)) return undefined;
    return { at: c.t, rank: c.r as number, id: c.i as number };
  } catch {
    return undefined;
  }
}

type Status = NonNullable<Entry['status']>;

function statusSummary(s: Status): string {
  if (s.action === 'CREATE') return `Created (${s.toStatus})`;
  const level = s.validationLevel ? ` at level ${s.validationLevel}` : '';
  return `${s.action}${level} (${s.fromStatus} -> ${s.toStatus})`;
}

/** A milestone row as to_jsonb gives it (timestamps as text). */
function milestoneOf(d: Record<string, unknown>): MilestoneRow {
  return Object.assign({}, d, {
    id: Number(d.id),
    type: d.type as MilestoneType,
    occurred_at: new Date(d.occurred_at as string),
    created_at: new Date(d.created_at as string),
    from_status: d.from_status as TransportStatus | null,
    to_status: d.to_status as TransportStatus | null,
  }) as MilestoneRow;
}

/** One timeline row in the contract's words; a source without a case here still gives its type and time. */
export function toTimelineEntry(row: TimelineRow): Entry {
  const base = { id: `${row.type}:${row.record_id}`, type: row.type as Entry['type'], occurredAt: iso(row.occurred_at) };
  const d = row.detail;
  switch (row.type) {
    case 'STATUS_CHANGED': {
      const status = d as unknown as Status;
      return Object.assign(base, { summary: statusSummary(status), status });
    }
    case 'MILESTONE': {
      const milestone = toMilestone(milestoneOf(d));
      return Object.assign(base, { summary: milestone.type, milestone });
    }
    case 'DOCUMENT_ADDED': {
      const document = d as unknown as NonNullable<Entry['document']>;
      return Object.assign(base, { summary: `Document added: ${document.filename}`, document });
    }
    case 'COMPLAINT_OPENED': {
      const complaint = d as unknown as NonNullable<Entry['complaint']>;
      return Object.assign(base, { summary: `Complaint opened: ${complaint.label}`, complaint });
    }
    case 'PROOF_OF_DELIVERY': {
      const proofOfDelivery = d as unknown as NonNullable<Entry['proofOfDelivery']>;
      return Object.assign(base, { summary: `Delivered, signed by ${proofOfDelivery.receiverName}`, proofOfDelivery });
    }
    default:
      return Object.assign(base, { summary: row.type });
  }
}
