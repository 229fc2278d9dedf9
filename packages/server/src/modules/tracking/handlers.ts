import type { ModuleHandlers } from '../../http/handlers.js';
import { caller } from '../../lib/identity.js';
import { findVisible } from '../transports/repository.js';
import { transportNotFound } from '../transports/rules.js';
import { checkRecordedAt, ingestPositions } from './ingest.js';
import { recordMilestone } from './milestones.js';
import { toPosition } from './mappers.js';
import { transportTracking } from './read.js';
import { badCursor, notTrackable, TRACKABLE } from './rules.js';
import { decodeCursor, encodeCursor, toTimelineEntry } from './timeline.js';
import { timelinePage } from './timeline-repository.js';

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
    const auth = caller(req);
    const { milestone, status } = await recordMilestone(req.server.db, auth, req.params.id, req.body);
    const message = milestone.statusChange ? `Milestone recorded; transport ${status}` : 'Milestone recorded';
    return { status: 201, message, result: milestone };
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
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    const { limit = 20, cursor } = req.query;
    const after = cursor === undefined ? null : decodeCursor(cursor);
    if (after === undefined) throw badCursor();
    if (!(await findVisible(db, auth, id))) throw transportNotFound(id);
    const rows = await timelinePage(db, id, limit + 1, after);
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? encodeCursor(page.at(-1)!) : null;
    return { message: 'Timeline retrieved', result: { data: page.map(toTimelineEntry), meta: { limit, next_cursor: next } } };
  },
};
