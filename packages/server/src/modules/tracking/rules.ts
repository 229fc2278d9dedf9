import { AppError } from '../../http/errors.js';
import type { TransportStatus } from '../../db/schema.js';

/** Statuses in which a transport takes positions and milestones (the contract's design decision). */
export const TRACKABLE: TransportStatus[] = ['VALIDATED', 'IN_PROGRESS', 'ON_HOLD', 'COMPLETED'];

export const notTrackable = (transportId: number, status: TransportStatus) =>
  new AppError(
    'NOT_TRACKABLE',
    { transportId, status, acceptedStatuses: TRACKABLE },
    'Transport takes no positions or milestones in its status',
  );
