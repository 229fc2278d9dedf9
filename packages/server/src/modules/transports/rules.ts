import type { components } from '@transport-ops/contract';
import { AppError, ListError } from '../../lib/errors.js';
import type { TransportStatus } from '../../db/schema.js';
import { STAFF, stateMachine } from '../../lib/state-machine.js';
import type { AccessLevel } from '../../lib/identity.js';

export type TransportAction = components['schemas']['TransportAction'];

/**
 * Where a transport stands in the workflow: its status, with a pending transport that passed the
 * team manager's validation (level 1) told apart, since the next validation is the supervisor's.
 */
export type WorkflowState = TransportStatus | 'LEVEL_1_VALIDATED';

export const workflowState = (status: TransportStatus, validationLevel: number): WorkflowState =>
  status === 'PENDING' && validationLevel === 1 ? 'LEVEL_1_VALIDATED' : status;

/** The columns a workflow state is stored in (status and validation_level; see migration 0003). */
export function storedState(state: WorkflowState): { status: TransportStatus; validation_level: number } {
  if (state === 'LEVEL_1_VALIDATED') return { status: 'PENDING', validation_level: 1 };
  return { status: state, validation_level: state === 'PENDING' || state === 'CANCELLED' ? 0 : 2 };
}

const LEVEL_1 = ['team_manager', 'supervisor', 'admin', 'super_admin'] as const;
const LEVEL_2 = ['supervisor', 'admin', 'super_admin'] as const;
const row = (from: WorkflowState, action: TransportAction, to: WorkflowState, roles: readonly AccessLevel[] = STAFF) => ({
  from,
  action,
  to,
  roles,
});

/**
 * The transport workflow (the contract's table on `applyTransportAction`). Validation has two
 * levels: the team manager's (level 1; supervisors and administrators may give it too, each role
 * holding the rights of the one below) and then the supervisor's (level 2), by another user.
 * A rejection at level 1 cancels the transport; at level 2 it sends it back to level 1.
 */
export const TRANSPORT_WORKFLOW = stateMachine<WorkflowState, TransportAction, AccessLevel>([
  row('PENDING', 'VALIDATE', 'LEVEL_1_VALIDATED', LEVEL_1),
  row('PENDING', 'REJECT', 'CANCELLED', LEVEL_1),
  row('LEVEL_1_VALIDATED', 'VALIDATE', 'VALIDATED', LEVEL_2),
  row('LEVEL_1_VALIDATED', 'REJECT', 'PENDING', LEVEL_2),
  row('VALIDATED', 'START', 'IN_PROGRESS'),
  row('IN_PROGRESS', 'FINISH', 'COMPLETED'),
  row('IN_PROGRESS', 'REPORT_PROBLEM', 'ON_HOLD'),
  row('COMPLETED', 'ARCHIVE', 'ARCHIVED'),
  row('CANCELLED', 'REACTIVATE', 'PENDING'),
  row('ON_HOLD', 'RESUME', 'IN_PROGRESS'),
  row('ON_HOLD', 'CANCEL', 'CANCELLED'),
]);

/** The validation level a VALIDATE or REJECT acts at in `state` (null for the other actions). */
export function validationLevelOf(state: WorkflowState, action: TransportAction): 1 | 2 | null {
  if (action !== 'VALIDATE' && action !== 'REJECT') return null;
  return state === 'LEVEL_1_VALIDATED' ? 2 : 1;
}

const ACTION_MESSAGES: Record<TransportAction, string> = {
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

/** The answer's message; a VALIDATE or REJECT says which level it was given at. */
export function actionMessage(action: TransportAction, level: 1 | 2 | null): string {
  if (action === 'VALIDATE' && level === 1) return 'Transport validated at level 1; awaiting the supervisor (level 2)';
  if (action === 'REJECT' && level === 2) return 'Transport rejected at level 2; back to level-1 validation';
  return ACTION_MESSAGES[action];
}

/** Statuses in which each side may change a transport's fields. */
export const USER_EDITABLE: TransportStatus[] = ['PENDING'];
export const ADMIN_EDITABLE: TransportStatus[] = ['PENDING', 'VALIDATED', 'ON_HOLD'];
/** Documents and the customer can still be attached in every status but the terminal one. */
export const NOT_ARCHIVED: TransportStatus[] = ['PENDING', 'VALIDATED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED', 'ON_HOLD'];

export const transportNotFound = (transportId: number) => new AppError('TRANSPORT_NOT_FOUND', { transportId }, 'Transport not found');

export const notEditable = (id: number, status: string, verb: 'changed' | 'deleted' = 'changed') =>
  new AppError('NOT_EDITABLE', { resource: 'transport', id, status }, `Transport can no longer be ${verb}`);

export const hasComplaint = (id: number, usageCount: number) =>
  new AppError('RESOURCE_IN_USE', { resource: 'transport', id, usageCount }, 'Transport has a complaint and cannot be deleted');

export const vehicleTypeNotFound = (vehicleTypeId: number) =>
  new AppError('VEHICLE_TYPE_NOT_FOUND', { vehicleTypeId }, 'Vehicle type not found');

export const customerNotFound = (customerId: number) => new AppError('CUSTOMER_NOT_FOUND', { customerId }, 'Customer not found');

export const missingCustomerInfo = (message: string) =>
  new AppError('MISSING_CUSTOMER_INFO', { message }, 'Customer needs an e-mail address or a phone number');

/**
 * A workflow state in the contract's words: `LEVEL_1_VALIDATED` is this module's name for a
 * `PENDING` transport at validation level 1, not a status a client ever sees.
 */
const inWords = (state: WorkflowState, preposition: 'to' | 'on') =>
  state === 'LEVEL_1_VALIDATED' ? `${preposition} a PENDING transport at validation level 1` : `in status ${state}`;

export const invalidTransition = (state: WorkflowState, requested: TransportAction, role: AccessLevel) =>
  new AppError(
    'INVALID_STATUS_TRANSITION',
    { currentStatus: storedState(state).status, requested, allowed: TRANSPORT_WORKFLOW.allowed(state, role) },
    `Action ${requested} is not allowed ${inWords(state, 'on')}`,
  );

export const wrongRole = (state: WorkflowState, requested: TransportAction, roles: readonly string[]) =>
  new AppError('FORBIDDEN', { requiredRoles: [...roles] }, `Your role may not apply ${requested} ${inWords(state, 'to')}`);

export const sameValidator = () =>
  new AppError(
    'SELF_ACTION_FORBIDDEN',
    { action: 'VALIDATE' },
    'The level-2 validation must be given by another user than the level-1 validation',
  );

/** 400 when the date range is reversed (the schema cannot compare two parameters). */
export function checkDateRange(f: { startDate?: string; endDate?: string }): void {
  if (f.startDate !== undefined && f.endDate !== undefined && new Date(f.startDate) > new Date(f.endDate)) {
    throw new ListError(400, 'Validation failed', ['querystring/startDate must not be after endDate']);
  }
}

type Window = { start: string; end: string } | null | undefined;

/** 400 when an appointment window ends before it starts (the schema cannot compare two fields). */
export function checkWindows(body: { loadingWindow?: Window; unloadingWindow?: Window }): void {
  const errors = (['loadingWindow', 'unloadingWindow'] as const)
    .filter((name) => {
      const w = body[name];
      return w && new Date(w.end) < new Date(w.start);
    })
    .map((name) => `body/${name}/end must not be before start`);
  if (errors.length > 0) throw new ListError(400, 'Validation failed', errors);
}
