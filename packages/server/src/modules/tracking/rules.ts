import type { components } from '@transport-ops/contract';
import { AppError, ListError } from '../../lib/errors.js';
import type { TransportStatus } from '../../db/schema.js';
import { storedState, TRANSPORT_WORKFLOW, workflowState } from '../transports/rules.js';

/** Statuses in which a transport takes positions and milestones (the contract's design decision). */
export const TRACKABLE: TransportStatus[] = ['VALIDATED', 'IN_PROGRESS', 'ON_HOLD', 'COMPLETED'];

export const notTrackable = (transportId: number, status: TransportStatus) =>
  new AppError(
    'NOT_TRACKABLE',
    { transportId, status, acceptedStatuses: TRACKABLE },
    'Transport takes no positions or milestones in its status',
  );

type MilestoneType = components['schemas']['TransportMilestoneType'];
type Action = components['schemas']['TransportAction'];

/** The status moves of milestones (the contract's table on `recordTransportMilestone`): per type, per current status, the action. */
const MOVES: Partial<Record<MilestoneType, Partial<Record<TransportStatus, Action | null>>>> = {
  DEPARTED: { VALIDATED: 'START', ON_HOLD: 'RESUME', IN_PROGRESS: null },
  UNLOADED: { IN_PROGRESS: 'FINISH' },
};
/** The action a refused move stands for, when the milestone has none from the current status. */
const REQUESTED: Partial<Record<MilestoneType, Action>> = { DEPARTED: 'START', UNLOADED: 'FINISH' };

/**
 * The workflow move a milestone makes from `status`: null when it moves nothing; 409
 * INVALID_STATUS_TRANSITION when the workflow (TRANSPORT_WORKFLOW) offers no such move.
 */
export function milestoneMove(
  type: MilestoneType,
  status: TransportStatus,
  validationLevel: number,
): { action: Action; to: TransportStatus } | null {
  const moves = MOVES[type];
  if (!moves) return null;
  const state = workflowState(status, validationLevel);
  const action = moves[status];
  const row = action ? TRANSPORT_WORKFLOW.transitions.find((t) => t.from === state && t.action === action) : undefined;
  if (action === null) return null;
  if (!action || !row) {
    const requested = action ?? REQUESTED[type]!;
    throw new AppError(
      'INVALID_STATUS_TRANSITION',
      { currentStatus: status, requested, allowed: TRANSPORT_WORKFLOW.allowed(state) },
      `Milestone ${type} cannot move a transport in status ${status}`,
    );
  }
  return { action, to: storedState(row.to).status };
}

export const complaintOnlyWithIncident = () =>
  new ListError(400, 'Validation failed', ['body/complaint is allowed only with type INCIDENT']);

export const occurredAhead = () =>
  new ListError(400, 'Validation failed', ['body/occurredAt must be at most 5 minutes ahead of the server clock']);

export const badCursor = () => new ListError(400, 'Validation failed', ['querystring/cursor is not a cursor of this timeline']);

export const complaintExists = (transportId: number, existingComplaintId: number) =>
  new AppError('COMPLAINT_EXISTS', { transportId, existingComplaintId }, 'A complaint already exists for this transport');
