import type { ModuleHandlers } from '../../http/handlers.js';
import { caller } from '../../lib/identity.js';
import { transportTracking } from '../tracking/read.js';
import { findVisible } from '../transports/repository.js';
import { transportNotFound } from '../transports/rules.js';
import { frame } from './events.js';
import { streamStart } from './repository.js';

export type LiveOps = 'streamTransportLive';

/** Sent first: clients reconnect 2 s after a lost stream (EventSource's and the SDK's delay). */
const RETRY = 'retry: 2000\n\n';

export const liveHandlers: ModuleHandlers<LiveOps> = {
  async streamTransportLive(req) {
    const auth = caller(req);
    const { db, live } = req.server;
    const { id } = req.params;
    const header = req.headers['last-event-id'];
    const resumeFrom = typeof header === 'string' ? Number(header) : null;
    if (!(await findVisible(db, auth, id))) throw transportNotFound(id);
    const lease = live.reserve(auth.userId);
    try {
      const start = await streamStart(db, id);
      // A resume point the server still covers: replay after it. Below the sweep (events may be
      // gone) or above every id issued (another database): start over with a snapshot.
      if (resumeFrom !== null && resumeFrom >= start.sweptThrough && resumeFrom <= start.issued) {
        return { stream: lease.open({ transportId: id, cursor: resumeFrom, first: RETRY, expiresAt: auth.expiresAt }) };
      }
      // The cursor is read before the tracking: an event after it may already be in the snapshot
      // (applied twice, harmlessly), none before it is missing from it.
      const cursor = start.latest ?? start.sweptThrough;
      const tracking = await transportTracking(db, id);
      if (!tracking) throw transportNotFound(id);
      const snapshot = frame(cursor, 'snapshot', { reason: resumeFrom === null ? 'CONNECTED' : 'RESYNC', tracking });
      return { stream: lease.open({ transportId: id, cursor, first: RETRY + snapshot, expiresAt: auth.expiresAt }) };
    } catch (error) {
      lease.release();
      throw error;
    }
  },
};
