import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Bus } from '../../lib/bus.js';
import type { AuthContext } from '../../lib/identity.js';
import { hashKey, identityOfKey, touchKey } from './repository.js';
import { metrics } from '../../lib/metrics.js';

const CHANNEL = 'api-keys-revoked';
const TRUST_MS = 30_000;
const TOUCH_MS = 60_000;
const MAX_ENTRIES = 10_000;
const FAR_FUTURE = new Date('9999-12-31T00:00:00Z');

interface Known {
  auth: AuthContext;
  keyId: number;
  checkedAt: number;
}

/**
 * Turns an `X-API-Key` into the identity of its service account. A key is looked up by its sha256
 * and remembered for TRUST_MS; a revocation (or a change of its account) forgets it on every
 * instance at once through the bus. Each use is recorded in `last_used_at`, at most once a
 * minute per key and instance (the write is not awaited and never fails the request).
 */
export function createApiKeyGuard(db: Kysely<Database>, bus: Bus, onError: (error: unknown) => void) {
  const known = new Map<string, Known>();
  const touched = new Map<number, number>();
  bus.subscribe(CHANNEL, () => known.clear());

  const touch = (keyId: number) => {
    const now = Date.now();
    if (now - (touched.get(keyId) ?? 0) < TOUCH_MS) return;
    touched.set(keyId, now);
    touchKey(db, keyId, new Date(now)).catch(onError);
  };

  return {
    /** The caller a key stands for, or null when it is unknown, revoked or its account inactive. */
    async authenticate(key: string): Promise<AuthContext | null> {
      const hash = hashKey(key);
      const hit = known.get(hash);
      const fresh = hit !== undefined && Date.now() - hit.checkedAt < TRUST_MS;
      metrics.cache('api_keys', fresh);
      if (hit && fresh) {
        touch(hit.keyId);
        return hit.auth;
      }
      const row = await identityOfKey(db, hash);
      if (!row) {
        known.delete(hash);
        return null;
      }
      const auth: AuthContext = {
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
      if (known.size >= MAX_ENTRIES) known.clear();
      known.set(hash, { auth, keyId: row.id, checkedAt: Date.now() });
      touch(row.id);
      return auth;
    },

    /** Forgets every remembered key on every instance (after a revocation). */
    async forgetAll(): Promise<void> {
      known.clear();
      await bus.publish(CHANNEL, '');
    },

    clear(): void {
      known.clear();
      touched.clear();
    },
  };
}
export type ApiKeyGuard = ReturnType<typeof createApiKeyGuard>;
