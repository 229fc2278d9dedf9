import type { FastifyRequest } from 'fastify';
import type { ModuleHandlers } from '../../http/handlers.js';
import { type AuthContext, caller } from '../../lib/identity.js';
import { transportTracking } from '../tracking/read.js';
import { findVisible } from '../transports/repository.js';
import { transportNotFound } from '../transports/rules.js';
import { frame } from './events.js';
import { streamStart } from './repository.js';

export type LiveOps = 'streamTransportLive';

/** Sent first: clients reconnect 2 s after a lost stream (EventSource's and the SDK's delay). */
const RETRY = 'retry: 2000\n\n';

/**
 * Whether the credential that opened a stream still may read it, asked at each heartbeat: the
 * session still active (a revocation, a deactivation or a role change revokes it, on any
 * instance: the database is read), or the API key still valid for an account of the same role
 * that still sees the transport.
 */
function stillAllowed(req: FastifyRequest, auth: AuthContext, id: number): () => Promise<boolean> {
  const { db, sessions, apiKeys } = req.server;
  const key = req.headers['x-api-key'];
  if (req.viaApiKey && typeof key === 'string') {
    return async () => {
      const now = await apiKeys.authenticate(key);
      if (!now || now.userId !== auth.userId || now.roleId !== auth.roleId || now.accessLevel !== auth.accessLevel) return false;
      return (await findVisible(db, now, id)) !== undefined;
    };
  }
  return async () => (await sessions.isActive(auth.sessionId)) === true;
}

export const liveHandlers: ModuleHandlers<LiveOps> = {
  async streamTransportLive(req) {
    const auth = caller(req);
    const { db, live } = req.server;
    const { id } = req.params;
    const header = req.headers['last-event-id'];
    const resumeFrom = typeof header === 'string' ? Number(header) : null;
    if (!(await findVisible(db, auth, id))) throw transportNotFound(id);
    const recheck = stillAllowed(req, auth, id);
    const lease = await live.reserve(auth.userId);
    try {
      const start = await streamStart(db, id);
      // A resume point the server still covers: replay after it. Below the sweep (events may be
      // gone) or above every id issued (another database): start over with a snapshot.
      if (resumeFrom !== null && resumeFrom >= start.sweptThrough && resumeFrom <= start.issued) {
        return { stream: lease.open({ transportId: id, cursor: resumeFrom, first: RETRY, expiresAt: auth.expiresAt, recheck }) };
      }
      // The cursor is read before the tracking: an event after it may already be in the snapshot
      // (applied twice, harmlessly), none before it is missing from it.
      const cursor = start.latest ?? start.sweptThrough;
      const tracking = await transportTracking(db, id);
      if (!tracking) throw transportNotFound(id);
      const snapshot = frame(cursor, 'snapshot', { reason: resumeFrom === null ? 'CONNECTED' : 'RESYNC', tracking });
      return { stream: lease.open({ transportId: id, cursor, first: RETRY + snapshot, expiresAt: auth.expiresAt, recheck }) };
    } catch (error) {
      lease.release();
      throw error;
    }
  },
};
