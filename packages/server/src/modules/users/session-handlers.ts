import { notFound } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { caller } from '../../lib/identity.js';
import { audit } from '../../lib/audit.js';
import { revokeSessions } from '../auth/repository.js';
import { countUnexpired, findUserRow, listSessionsQuery, selectSessions, sessionIsActive, toSession } from './repository.js';
import { assertCanActOn, selfAction } from './rules.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

export const sessionHandlers: ModuleHandlers<'listSessions' | 'getSessionById' | 'revokeSession' | 'revokeUserSessions'> = {
  async listSessions(req) {
    const { page = 1, limit = 10 } = req.query;
    const { rows, total } = await fetchPage(listSessionsQuery(req.query), page, limit, req.server.db);
    return { message: 'Sessions retrieved', result: { data: rows.map(toSession), meta: pageMeta(total, page, limit) } };
  },

  async getSessionById(req) {
    return { message: 'Session retrieved', result: await sessionRepresentations.getSessionById.read(req) };
  },

  async revokeSession(req) {
    const auth = caller(req);
    const { db, sessions } = req.server;
    const { id } = req.params;
    const session = await selectSessions(db).where('s.id', '=', id).executeTakeFirst();
    if (!session) throw notFound.resource('session', id);
    if (id === auth.sessionId) throw selfAction('revoke', 'You cannot revoke your current session; log out instead');
    assertCanActOn(auth, session.access_level);
    // Already revoked or expired: nothing to change.
    if (sessionIsActive(session)) {
      const revoked = await db.transaction().execute(async (trx) => {
        const ended = await revokeSessions(trx, { sessionId: id }, 'admin_revoked');
        await audit(trx, req, { action: 'session.revoked', resource: { type: 'session', id }, details: { userId: session.user_id } });
        return ended;
      });
      await sessions.forget(revoked);
    }
    return { message: 'Session revoked', result: null };
  },

  async revokeUserSessions(req) {
    const auth = caller(req);
    const { db, sessions } = req.server;
    const { id } = req.params;
    const target = await findUserRow(db, id);
    if (!target) throw notFound.resource('user', id);
    if (id === auth.userId) throw selfAction('revoke', 'You cannot revoke your own sessions; log out instead');
    assertCanActOn(auth, target.access_level);
    const { revoked, revokedCount } = await db.transaction().execute(async (trx) => {
      const ids = await revokeSessions(trx, { userId: id }, 'admin_revoked');
      // Sessions that had already expired were not open: they are not counted.
      const count = await countUnexpired(trx, ids);
      await audit(trx, req, { action: 'user.sessions_revoked', resource: { type: 'user', id }, details: { revokedSessions: count } });
      return { revoked: ids, revokedCount: count };
    });
    await sessions.forget(revoked);
    return { message: 'Sessions revoked', result: { revokedCount } };
  },
};

/** The session as its GET answers it (write-safety/representations.ts). */
export const sessionRepresentations: ModuleRepresentations<'getSessionById'> = {
  getSessionById: {
    row: { table: 'sessions', id: (req) => req.params.id },
    async read(req) {
      const row = await selectSessions(req.server.db).where('s.id', '=', req.params.id).executeTakeFirst();
      if (!row) throw notFound.resource('session', req.params.id);
      return toSession(row);
    },
  },
};
