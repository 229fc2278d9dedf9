import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Bus } from '../../lib/bus.js';
import { sessionValidity } from './repository.js';

const CHANNEL = 'sessions-revoked';
const MAX_ENTRIES = 100_000;

/**
 * Answers "is this session still active?" for every authenticated request. The database is the
 * authority: every request reads its session's row (one primary-key lookup), so a revocation, a
 * deactivation or a role change committed on any instance, and the session's `expires_at`, hold on
 * every instance from the next request on, whether Redis is up or not. Nothing found active is
 * remembered; what this instance (or, through the bus, another one) ended is remembered as ended,
 * so a revoked token is refused without a query (a cache that may only refuse early).
 */
export function createSessionGuard(db: Kysely<Database>, bus: Bus) {
  const ended = new Set<number>();
  const remember = (ids: number[]) => {
    if (ended.size + ids.length > MAX_ENTRIES) ended.clear();
    for (const id of ids) ended.add(id);
  };
  bus.subscribe(CHANNEL, (message) => remember(JSON.parse(message) as number[]));

  const check = async (sessionId: number): Promise<boolean> => {
    const row = await sessionValidity(db, sessionId);
    // Read after the request arrived: an expiry is exact to the row's own instant.
    const active = row !== undefined && row.revoked_at === null && new Date(row.expires_at).getTime() > Date.now();
    if (!active && row !== undefined && row.revoked_at !== null) remember([sessionId]);
    return active;
  };

  return {
    /** `false` at once for a session known to have ended; otherwise the database's answer. */
    isActive(sessionId: number): false | Promise<boolean> {
      if (ended.has(sessionId)) return false;
      return check(sessionId);
    },

    /** Forgets what is remembered (the next check of each session reads the database). */
    clear(): void {
      ended.clear();
    },

    /** After the revocation committed (by the caller, in its transaction): every instance may refuse these at once. */
    async forget(sessionIds: number[]): Promise<void> {
      if (sessionIds.length === 0) return;
      remember(sessionIds);
      await bus.publish(CHANNEL, JSON.stringify(sessionIds));
    },
  };
}
export type SessionGuard = ReturnType<typeof createSessionGuard>;
