import { AppError } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { caller } from '../../lib/identity.js';
import { findVisible } from '../transports/repository.js';
import { transportNotFound } from '../transports/rules.js';
import { checkRecordedAt, ingestPositions } from './ingest.js';
import { toPosition } from './mappers.js';
import { transportTracking } from './read.js';
import { notTrackable, TRACKABLE } from './rules.js';

export type TrackingOps = 'recordTransportPositions' | 'recordTransportMilestone' | 'getTransportTracking' | 'getTransportTimeline';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const trackingHandlers: ModuleHandlers<TrackingOps> = {
  async recordTransportPositions(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { positions } = req.body;
    checkRecordedAt(positions, new Date());
    const transport = await findVisible(db, auth, id);
    if (!transport) throw transportNotFound(id);
    if (!TRACKABLE.includes(transport.status)) throw notTrackable(id, transport.status);
    const { accepted, duplicates, last } = await ingestPositions(db, id, positions);
    return {
      status: 202,
      message: `${plural(accepted, 'position')} accepted, ${plural(duplicates, 'duplicate')} ignored`,
      result: { transportId: id, accepted, duplicates, lastPosition: toPosition(last!) },
    };
  },

  async recordTransportMilestone(req) {
    caller(req);
    throw new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 60 }, 'Not available yet');
  },

  async getTransportTracking(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    if (!(await findVisible(db, auth, id))) throw transportNotFound(id);
    const tracking = await transportTracking(db, id);
    if (!tracking) throw transportNotFound(id);
    return { message: 'Tracking retrieved', result: tracking };
  },

  async getTransportTimeline(req) {
    caller(req);
    throw new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 60 }, 'Not available yet');
  },
};
