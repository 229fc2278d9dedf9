import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Bus } from '../../lib/bus.js';
import { sessionValidity } from './repository.js';

const CHANNEL = 'sessions-revoked';
const TRUST_MS = 30_000;
const MAX_ENTRIES = 100_000;

/**
 * Answers "is this session still active?" for every authenticated request. Active sessions are
 * remembered for a short while; a revocation deletes the entry on every instance at once through
 * the bus, so revoked tokens stop working immediately.
 */
export function createSessionGuard(db: Kysely<Database>, bus: Bus) {
  const trusted = new Map<number, number>();
  bus.subscribe(CHANNEL, (message) => {
    for (const id of JSON.parse(message) as number[]) trusted.delete(id);
  });

  const check = async (sessionId: number): Promise<boolean> => {
    const now = Date.now();
    const row = await sessionValidity(db, sessionId);
    const active = row !== undefined && row.revoked_at === null && new Date(row.expires_at).getTime() > now;
    if (active) {
      if (trusted.size >= MAX_ENTRIES) trusted.clear();
      trusted.set(sessionId, now);
    } else {
      trusted.delete(sessionId);
    }
    return active;
  };

  return {
    /** `true` at once for a session checked within TRUST_MS (no promise on that path: it is every request's). */
    isActive(sessionId: number): true | Promise<boolean> {
      const checkedAt = trusted.get(sessionId);
      if (checkedAt !== undefined && Date.now() - checkedAt < TRUST_MS) return true;
      return check(sessionId);
    },

    /** Forgets every remembered session (the next check of each reads the database). */
    clear(): void {
      trusted.clear();
    },

    /** Records the revocation in the database (by the caller, in its transaction) and tells every instance. */
    async forget(sessionIds: number[]): Promise<void> {
      if (sessionIds.length === 0) return;
      for (const id of sessionIds) trusted.delete(id);
      await bus.publish(CHANNEL, JSON.stringify(sessionIds));
    },
  };
}
export type SessionGuard = ReturnType<typeof createSessionGuard>;
