import type { components } from '@transport-ops/contract';
import { iso } from '../../lib/time.js';
import type { ComplaintRefRow, DocumentRow, TransportRecord, TransportRow } from './repository.js';
import type { AccessLevel } from '../../lib/identity.js';
import { TRANSPORT_WORKFLOW, workflowState } from './rules.js';

type Schemas = components['schemas'];

export const documentUrl = (id: number) => `/trade/transports/documents/${id}`;

function vehicleType(row: TransportRow): Schemas['TransportVehicleType'] {
  return {
    id: row.vt_id,
    name: row.vt_name,
    description: row.vt_description,
    // The column allows null but every write path sets it (the contract requires > 0).
    maxWeight: row.vt_max_weight ?? 0,
    category: row.vt_category,
  };
}

function customer(row: TransportRow): Schemas['TransportCustomer'] | null {
  if (row.c_id === null) return null;
  return {
    id: row.c_id,
    firstName: row.c_first_name!,
    lastName: row.c_last_name!,
    email: row.c_email,
    phone: row.c_phone,
    address: row.c_address,
    createdAt: iso(row.c_created_at!),
  };
}

function creator(row: TransportRow): Schemas['TransportCreator'] {
  return { id: row.u_id, username: row.u_username, firstName: row.u_first_name, lastName: row.u_last_name };
}

export function toDocument(d: DocumentRow): Schemas['TransportDocument'] {
  return {
    id: d.id,
    type: d.type,
    filename: d.filename,
    mimeType: d.mime_type as Schemas['TransportDocument']['mimeType'],
    size: d.size,
    url: documentUrl(d.id),
    uploadedAt: iso(d.uploaded_at),
  };
}

const toComplaintRef = (c: ComplaintRefRow): Schemas['TransportComplaintRef'] => ({
  id: c.id,
  label: c.label,
  status: c.status,
  createdAt: iso(c.created_at),
});

export function toTransport({ row, documents, complaints }: TransportRecord): Schemas['Transport'] {
  return {
    id: row.id,
    publicId: row.public_id,
    loadingNumber: row.loading_number,
    chargerFirstName: row.charger_first_name,
    chargerLastName: row.charger_last_name,
    chargerPhone: row.charger_phone,
    chargerEmail: row.charger_email,
    loadingPoint: row.loading_point,
    unloadingPoint: row.unloading_point,
    vehiclePlateNumber: row.vehicle_plate_number,
    productLabel: row.product_label,
    productQuantity: row.product_quantity,
    averageWeight: row.average_weight,
    averageUnitPrice: row.average_unit_price,
    totalProductValue: row.total_product_value,
    status: row.status,
    validationLevel: row.validation_level as 0 | 1 | 2,
    vehicleType: vehicleType(row),
    customer: customer(row),
    documents: documents.map(toDocument),
    complaints: complaints.map(toComplaintRef),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    loadingCoordinates: point(row.loading_latitude, row.loading_longitude),
    unloadingCoordinates: point(row.unloading_latitude, row.unloading_longitude),
    loadingWindow: window(row.loading_window_start, row.loading_window_end),
    unloadingWindow: window(row.unloading_window_start, row.unloading_window_end),
  };
}

const point = (latitude: number | null, longitude: number | null) =>
  latitude === null || longitude === null ? null : { latitude, longitude };
const window = (start: Date | null, end: Date | null) => (start === null || end === null ? null : { start: iso(start), end: iso(end) });

/** The staff view; `allowedActions` are the actions open to the caller's access level. */
export function toAdminTransport(record: TransportRecord, role: AccessLevel): Schemas['TransportAdminDetail'] {
  const state = workflowState(record.row.status, record.row.validation_level);
  return Object.assign({}, toTransport(record), {
    createdBy: creator(record.row),
    allowedActions: TRANSPORT_WORKFLOW.allowed(state, role),
  });
}

export function toListItem(row: TransportRow): Schemas['TransportListItem'] {
  return {
    id: row.id,
    publicId: row.public_id,
    loadingNumber: row.loading_number,
    status: row.status,
    loadingPoint: row.loading_point,
    unloadingPoint: row.unloading_point,
    vehiclePlateNumber: row.vehicle_plate_number,
    productLabel: row.product_label,
    vehicleType: { id: row.vt_id, name: row.vt_name },
    customer: row.c_id === null ? null : { id: row.c_id, firstName: row.c_first_name!, lastName: row.c_last_name! },
    createdAt: iso(row.created_at),
  };
}

export const toAdminListItem = (row: TransportRow): Schemas['TransportAdminListItem'] =>
  Object.assign({}, toListItem(row), {
    createdBy: creator(row),
  });
