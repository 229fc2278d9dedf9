import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Bus } from '../../lib/bus.js';
import { sessionValidity } from './repository.js';

const CHANNEL = 'sessions-revoked';
const TRUST_MS = 30_000;
const MAX_ENTRIES = 100_000;

/** A session found active: when that was read from the database, and until when it may be trusted. */
interface Trusted {
  checkedAt: number;
  until: number;
}

/**
 * Answers "is this session still active?" for every authenticated request. An active session is
 * remembered for at most TRUST_MS, and never past its own expiry; a revocation deletes the entry
 * on every instance at once through the bus. An entry is trusted only while the bus has been live
 * since the entry was read (`bus.liveSince()`): while Redis is unreachable, and for what was read
 * before it came back, every request reads the session from the database, so a revocation made on
 * another instance during the outage takes effect at once here too.
 */
export function createSessionGuard(db: Kysely<Database>, bus: Bus) {
  const trusted = new Map<number, Trusted>();
  bus.subscribe(CHANNEL, (message) => {
    for (const id of JSON.parse(message) as number[]) trusted.delete(id);
  });

  const check = async (sessionId: number): Promise<boolean> => {
    const checkedAt = Date.now();
    const row = await sessionValidity(db, sessionId);
    const expiresAt = row === undefined ? 0 : new Date(row.expires_at).getTime();
    const active = row !== undefined && row.revoked_at === null && expiresAt > checkedAt;
    if (active) {
      if (trusted.size >= MAX_ENTRIES) trusted.clear();
      trusted.set(sessionId, { checkedAt, until: Math.min(checkedAt + TRUST_MS, expiresAt) });
    } else {
      trusted.delete(sessionId);
    }
    return active;
  };

  return {
    /** `true` at once for a session trusted from a recent check (no promise on that path: it is every request's). */
    isActive(sessionId: number): true | Promise<boolean> {
      const entry = trusted.get(sessionId);
      if (entry !== undefined && Date.now() < entry.until && entry.checkedAt >= bus.liveSince()) return true;
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
