import { sql, type Kysely } from 'kysely';
import type { Database, StoredHeaders } from '../../db/schema.js';
import { queryShape } from '../../lib/query-shape.js';

type Db = Kysely<Database>;

/** What a request under an `Idempotency-Key` is bound to (see the contract's introduction). */
export interface KeyClaim {
  scope: string;
  key: string;
  operation: string;
  fingerprint: string;
}

/** A key already held: its first request, and the answer stored for it if any. */
export interface HeldKey {
  operation: string;
  fingerprint: string;
  status: number | null;
  headers: StoredHeaders | null;
  body: string | null;
  /** The first request may still be running (its lease has not ended). */
  in_flight: boolean;
}

// The statements of every keyed request, compiled once (lib/query-shape.ts): a keyed POST pays
// for two more statements (the claim and the answer), not for building them again each time.
const claimShape = queryShape(
  { values: ['scope', 'key', 'operation', 'fingerprint'], structure: ['leaseMs', 'retentionMs'] },
  (db, p: KeyClaim & { leaseMs: number; retentionMs: number }) => {
    const lockedUntil = sql<Date>`now() + ${sql.lit(p.leaseMs)} * interval '1 millisecond'`;
    const expiresAt = sql<Date>`now() + ${sql.lit(p.retentionMs)} * interval '1 millisecond'`;
    return db
      .insertInto('idempotency_keys')
      .values({
        scope: p.scope,
        key: p.key,
        operation: p.operation,
        fingerprint: p.fingerprint,
        locked_until: lockedUntil,
        expires_at: expiresAt,
      })
      .onConflict((oc) =>
        oc
          .columns(['scope', 'key'])
          .doUpdateSet({
            operation: (eb) => eb.ref('excluded.operation'),
            fingerprint: (eb) => eb.ref('excluded.fingerprint'),
            status: null,
            headers: null,
            body: null,
            locked_until: lockedUntil,
            expires_at: expiresAt,
            created_at: sql<Date>`now()`,
          })
          .where('idempotency_keys.expires_at', '<=', sql<Date>`now()`),
      )
      .returning('key');
  },
);

const heldShape = queryShape({ values: ['scope', 'key'] }, (db, p: { scope: string; key: string }) =>
  db
    .selectFrom('idempotency_keys')
    .select(['operation', 'fingerprint', 'status', 'headers', 'body', sql<boolean>`locked_until > now()`.as('in_flight')])
    .where('scope', '=', p.scope)
    .where('key', '=', p.key)
    .where('expires_at', '>', sql<Date>`now()`),
);

const storeShape = queryShape(
  { values: ['scope', 'key', 'status', 'headers', 'body'] },
  (db, p: { scope: string; key: string; status: number; headers: string; body: string }) =>
    db
      .updateTable('idempotency_keys')
      .set({ status: p.status, headers: p.headers, body: p.body })
      .where('scope', '=', p.scope)
      .where('key', '=', p.key),
);

const freeShape = queryShape({ values: ['scope', 'key'] }, (db, p: { scope: string; key: string }) =>
  db.deleteFrom('idempotency_keys').where('scope', '=', p.scope).where('key', '=', p.key).where('status', 'is', null),
);

/**
 * Claims `claim.key` for its caller: true when this request now holds it (a new key, or one past
 * its expiry, taken over in the same statement), false when another request holds it. One
 * statement, so of concurrent claims exactly one wins on every instance. Times are the
 * database's, so instances agree on them.
 */
export async function claimKey(db: Db, claim: KeyClaim, leaseMs: number, retentionMs: number): Promise<boolean> {
  const row = await claimShape.executeTakeFirst(db, Object.assign({ leaseMs, retentionMs }, claim));
  return row !== undefined;
}

/** The key as another request holds it; undefined when it is free again (or expired). */
export function heldKey(db: Db, scope: string, key: string): Promise<HeldKey | undefined> {
  return heldShape.executeTakeFirst(db, { scope, key });
}

/** Stores the answer of the request that holds the key (replayed from now on). */
export async function storeAnswer(db: Db, scope: string, key: string, status: number, headers: StoredHeaders, body: string): Promise<void> {
  await storeShape.execute(db, { scope, key, status, headers: JSON.stringify(headers), body });
}

/** Frees a key whose request failed (nothing was written): a retry runs the request again. */
export async function freeKey(db: Db, scope: string, key: string): Promise<void> {
  await freeShape.execute(db, { scope, key });
}

/** Deletes up to `limit` keys that expired before `now`, and resource locks whose lease ended; returns how many keys went. */
export async function deleteExpiredKeys(db: Db, now: Date, limit: number): Promise<number> {
  // Batches by physical row id: one short statement each, so a large sweep never holds many rows at once.
  const { rows } = await sql<{ key: string }>`
    delete from idempotency_keys where ctid = any(array(
      select ctid from idempotency_keys where expires_at < ${now} order by expires_at limit ${limit}))
    returning key`.execute(db);
  await db.deleteFrom('resource_locks').where('locked_until', '<', now).execute();
  return rows.length;
}

/**
 * Takes the lease on `resource` for `holder` until the lease ends (a holder that died loses it
 * then): true when taken, false when another holder has it.
 */
export async function takeLock(db: Db, resource: string, holder: string, leaseMs: number): Promise<boolean> {
  const lockedUntil = sql<Date>`now() + ${sql.lit(leaseMs)} * interval '1 millisecond'`;
  const row = await db
    .insertInto('resource_locks')
    .values({ resource, holder, locked_until: lockedUntil })
    .onConflict((oc) =>
      oc.column('resource').doUpdateSet({ holder, locked_until: lockedUntil }).where('resource_locks.locked_until', '<', sql<Date>`now()`),
    )
    .returning('holder')
    .executeTakeFirst();
  return row !== undefined;
}

/** Ends `holder`'s lease on `resource`. */
export async function releaseLock(db: Db, resource: string, holder: string): Promise<void> {
  await db.deleteFrom('resource_locks').where('resource', '=', resource).where('holder', '=', holder).execute();
}
