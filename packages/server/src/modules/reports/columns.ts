import { iso } from '../../lib/time.js';
import type { ComplaintRow } from '../complaints/repository.js';
import type { TransportRow } from '../transports/repository.js';
import type { CsvColumn } from './export.js';

const name = (first: string | null, last: string | null) => [first, last].filter(Boolean).join(' ');

/** The columns of the transports export, in order (the contract lists them). */
export const TRANSPORT_COLUMNS: CsvColumn<TransportRow>[] = [
  { header: 'id', value: (r) => r.id, numeric: true },
  { header: 'loadingNumber', value: (r) => r.loading_number },
  { header: 'status', value: (r) => r.status },
  { header: 'validationLevel', value: (r) => r.validation_level, numeric: true },
  { header: 'loadingPoint', value: (r) => r.loading_point },
  { header: 'unloadingPoint', value: (r) => r.unloading_point },
  { header: 'vehicleType', value: (r) => r.vt_name },
  { header: 'vehiclePlateNumber', value: (r) => r.vehicle_plate_number },
  { header: 'productLabel', value: (r) => r.product_label },
  { header: 'productQuantity', value: (r) => r.product_quantity, numeric: true },
  { header: 'totalProductValue', value: (r) => r.total_product_value, numeric: true },
  { header: 'customer', value: (r) => (r.c_id === null ? null : name(r.c_first_name, r.c_last_name)) },
  { header: 'createdBy', value: (r) => r.u_username },
  { header: 'createdAt', value: (r) => iso(r.created_at) },
];

/** The columns of the complaints export, in order (the contract lists them). */
export const COMPLAINT_COLUMNS: CsvColumn<ComplaintRow>[] = [
  { header: 'id', value: (r) => r.id, numeric: true },
  { header: 'publicId', value: (r) => r.public_id },
  { header: 'label', value: (r) => r.label },
  { header: 'status', value: (r) => r.status },
  { header: 'complaintType', value: (r) => r.type_name },
  { header: 'transportId', value: (r) => r.transport_id, numeric: true },
  { header: 'customer', value: (r) => (r.customer_id === null ? null : name(r.customer_first_name, r.customer_last_name)) },
  { header: 'amountPaid', value: (r) => r.amount_paid, numeric: true },
  { header: 'timeLost', value: (r) => r.time_lost, numeric: true },
  { header: 'createdBy', value: (r) => r.created_by_username },
  { header: 'assignedTo', value: (r) => r.assigned_to_username },
  { header: 'createdAt', value: (r) => iso(r.created_at) },
  { header: 'resolvedAt', value: (r) => (r.resolved_at === null ? null : iso(r.resolved_at)) },
];
