import type { components } from '@transport-ops/contract';
import { AppError } from '../../http/errors.js';
import type { TransportStatus } from '../../db/schema.js';

export type TransportAction = components['schemas']['TransportAction'];

/** The transport state machine (TransportStatus and TransportAction in the contract): status → action → new status. */
export const TRANSITIONS: Record<TransportStatus, Partial<Record<TransportAction, TransportStatus>>> = {
  PENDING: { VALIDATE: 'VALIDATED', REJECT: 'CANCELLED' },
  VALIDATED: { START: 'IN_PROGRESS' },
  IN_PROGRESS: { FINISH: 'COMPLETED', REPORT_PROBLEM: 'ON_HOLD' },
  COMPLETED: { ARCHIVE: 'ARCHIVED' },
  CANCELLED: { REACTIVATE: 'PENDING' },
  ON_HOLD: { RESUME: 'IN_PROGRESS', CANCEL: 'CANCELLED' },
  ARCHIVED: {},
};

export const allowedActions = (status: TransportStatus): TransportAction[] =>
  Object.keys(TRANSITIONS[status]) as TransportAction[];

export const ACTION_MESSAGES: Record<TransportAction, string> = {
  VALIDATE: 'Transport validated',
  REJECT: 'Transport rejected',
  START: 'Transport started',
  FINISH: 'Transport finished',
  REPORT_PROBLEM: 'Problem reported, transport on hold',
  ARCHIVE: 'Transport archived',
  REACTIVATE: 'Transport reactivated',
  RESUME: 'Transport resumed',
  CANCEL: 'Transport cancelled',
};

/** Statuses in which each side may change a transport's fields. */
export const USER_EDITABLE: TransportStatus[] = ['PENDING'];
export const ADMIN_EDITABLE: TransportStatus[] = ['PENDING', 'VALIDATED', 'ON_HOLD'];
/** Documents and the customer can still be attached in every status but the terminal one. */
export const NOT_ARCHIVED: TransportStatus[] = ['PENDING', 'VALIDATED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED', 'ON_HOLD'];

export const transportNotFound = (transportId: number) =>
  new AppError('TRANSPORT_NOT_FOUND', { transportId }, 'Transport not found');

export const notEditable = (id: number, status: string, verb: 'changed' | 'deleted' = 'changed') =>
  new AppError('NOT_EDITABLE', { resource: 'transport', id, status }, `Transport can no longer be ${verb}`);

export const hasComplaint = (id: number, usageCount: number) =>
  new AppError('RESOURCE_IN_USE', { resource: 'transport', id, usageCount }, 'Transport has a complaint and cannot be deleted');

export const vehicleTypeNotFound = (vehicleTypeId: number) =>
  new AppError('VEHICLE_TYPE_NOT_FOUND', { vehicleTypeId }, 'Vehicle type not found');

export const customerNotFound = (customerId: number) =>
  new AppError('CUSTOMER_NOT_FOUND', { customerId }, 'Customer not found');

export const missingCustomerInfo = (message: string) =>
  new AppError('MISSING_CUSTOMER_INFO', { message }, 'Customer needs an e-mail address or a phone number');

export const invalidTransition = (currentStatus: TransportStatus, requested: TransportAction) =>
  new AppError(
    'INVALID_STATUS_TRANSITION',
    { currentStatus, requested, allowed: allowedActions(currentStatus) },
    `Action ${requested} is not allowed in status ${currentStatus}`,
  );
