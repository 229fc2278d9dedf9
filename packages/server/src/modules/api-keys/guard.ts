import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthContext } from '../../lib/identity.js';
import { hashKey, identityOfKey, touchKey } from './repository.js';

const TOUCH_MS = 60_000;
const FAR_FUTURE = new Date('9999-12-31T00:00:00Z');

/**
 * Turns an `X-API-Key` into the identity of its service account. The database is the authority:
 * every request looks the key up by its sha256 joined to its account and roles (one indexed
 * query), so a revocation, or a deactivation, demotion or deletion of its account, committed on
 * any instance holds on every instance from the next request on, whether Redis is up or not.
 * Each use is recorded in `last_used_at`, at most once a minute per key and instance (the write
 * is not awaited and never fails the request).
 */
export function createApiKeyGuard(db: Kysely<Database>, onError: (error: unknown) => void) {
  const touched = new Map<number, number>();

  const touch = (keyId: number) => {
    const now = Date.now();
    if (now - (touched.get(keyId) ?? 0) < TOUCH_MS) return;
    if (touched.size >= 10_000) touched.clear();
    touched.set(keyId, now);
    touchKey(db, keyId, new Date(now)).catch(onError);
  };

  return {
    /** The caller a key stands for, or null when it is unknown, revoked or its account inactive. */
    async authenticate(key: string): Promise<AuthContext | null> {
      const row = await identityOfKey(db, hashKey(key));
      if (!row) return null;
      touch(row.id);
      return {
        userId: row.user_id,
        username: row.username,
        email: row.email,
        roleId: row.role_id,
        accessLevel: row.access_level,
        countryId: row.country_id,
        organizationId: row.organization_id,
        actorId: null,
        sessionId: 0,
        tokenId: `apikey:${row.id}`,
        expiresAt: FAR_FUTURE,
      };
    },

    clear(): void {
      touched.clear();
    },
  };
}
export type ApiKeyGuard = ReturnType<typeof createApiKeyGuard>;
