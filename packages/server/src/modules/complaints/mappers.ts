import type { components } from '@transport-ops/contract';
import type { ComplaintAttachment, ComplaintsTable } from '../../db/schema.js';
import { type ColumnsOf, sentColumns } from '../../lib/patch.js';
import { iso } from '../../lib/time.js';
import { attachmentUrl } from './attachment-repository.js';
import type { ComplaintChanges } from './change-repository.js';
import type { auditedRow, ComplaintRow, HistoryRow } from './repository.js';
import type { AccessLevel } from '../../lib/identity.js';
import { COMPLAINT_WORKFLOW } from './rules.js';

type Schemas = components['schemas'];
type AttachmentType = Schemas['ComplaintAttachment']['type'];

export function toListItem(r: ComplaintRow): Schemas['ComplaintListItem'] {
  return {
    id: r.id,
    publicId: r.public_id,
    label: r.label,
    status: r.status,
    location: r.location,
    amountPaid: r.amount_paid,
    timeLost: r.time_lost,
    transport: transportRef(r),
    complaintType: r.type_id === null ? null : { id: r.type_id, name: r.type_name! },
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export function toAdminListItem(r: ComplaintRow): Schemas['ComplaintAdminListItem'] {
  return Object.assign({}, toListItem(r), people(r));
}

/** The user-side view; `allowedStatuses` are the moves open to the caller's access level. */
export function toDetail(r: ComplaintRow, attachments: AttachmentRow[], role: AccessLevel): Schemas['Complaint'] {
  return {
    id: r.id,
    publicId: r.public_id,
    label: r.label,
    description: r.description,
    status: r.status,
    location: r.location,
    amountPaid: r.amount_paid,
    timeLost: r.time_lost,
    transport: transportRef(r),
    customer:
      r.customer_id === null
        ? null
        : { id: r.customer_id, firstName: r.customer_first_name!, lastName: r.customer_last_name!, email: r.customer_email },
    complaintType: r.type_id === null ? null : { id: r.type_id, name: r.type_name!, description: r.type_description },
    attachments: attachments.map((a) => ({
      id: a.id,
      type: a.mime_type as AttachmentType,
      url: attachmentUrl(a.id),
      filename: a.filename,
    })),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    allowedStatuses: COMPLAINT_WORKFLOW.targets(r.status, role),
  };
}

/** The staff view; `allowedStatuses` are the moves open to the caller's access level. */
export function toAdmin(r: ComplaintRow, attachments: AttachmentRow[], role: AccessLevel): Schemas['ComplaintAdmin'] {
  return Object.assign({}, toDetail(r, attachments, role), people(r), { resolvedAt: iso(r.resolved_at) });
}

export function toHistoryEntry(h: HistoryRow): Schemas['ComplaintStatusHistoryEntry'] {
  const person = (first: string | null, last: string | null) => [first, last].filter(Boolean).join(' ');
  // CUSTOMER entries speak for the complaint's customer; AGENT entries for the user account that wrote them.
  const customer = h.created_by_type === 'CUSTOMER' && h.customer_id !== null;
  return {
    id: h.id,
    status: h.status,
    comment: h.comment,
    createdBy: {
      id: customer ? h.customer_id! : (h.user_id ?? 0),
      name: customer
        ? person(h.customer_first_name, h.customer_last_name)
        : person(h.first_name, h.last_name) || (h.username ?? 'Unknown user'),
      type: h.created_by_type,
    },
    createdAt: iso(h.created_at),
  };
}

export type AttachmentRow = Pick<ComplaintAttachment, 'id' | 'filename' | 'mime_type'>;

function transportRef(r: ComplaintRow): Schemas['ComplaintTransportRef'] {
  return {
    id: r.transport_id,
    loadingPoint: r.loading_point,
    unloadingPoint: r.unloading_point,
    vehiclePlateNumber: r.vehicle_plate_number,
  };
}

function people(r: ComplaintRow) {
  return {
    createdBy: { id: r.created_by_id, username: r.created_by_username },
    assignedTo: r.assigned_to_id === null ? null : { id: r.assigned_to_id, username: r.assigned_to_username! },
  };
}

/** The columns a PATCH body changes: only the fields sent, `null` clearing. */
const CHANGE_COLUMNS = {
  label: 'label',
  description: 'description',
  location: 'location',
  amountPaid: 'amount_paid',
  timeLost: 'time_lost',
  customerId: 'customer_id',
  complaintTypeId: 'complaint_type_id',
} as const satisfies ColumnsOf<Schemas['ComplaintAdminUpdate'], ComplaintsTable>;

export const toChanges = (body: Schemas['ComplaintUpdate'] | Schemas['ComplaintAdminUpdate']): ComplaintChanges =>
  sentColumns(body, CHANGE_COLUMNS);

/** The audited fields of a complaint (repository `auditedRow`), named as in the request bodies. */
export const auditedFields = (r: NonNullable<Awaited<ReturnType<typeof auditedRow>>>) => ({
  label: r.label,
  description: r.description,
  location: r.location,
  amountPaid: r.amount_paid === null ? null : Number(r.amount_paid),
  timeLost: r.time_lost,
  customerId: r.customer_id,
  complaintTypeId: r.complaint_type_id,
  status: r.status,
  userId: r.assigned_to,
});
