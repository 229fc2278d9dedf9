import { sql, type Kysely } from 'kysely';
import type { Database, StoredHeaders } from '../../db/schema.js';
import { queryShape } from '../../lib/query-shape.js';

type Db = Kysely<Database>;

/** What a request under an `Idempotency-Key` is bound to, and who runs it (see the contract's introduction). */
export interface KeyClaim {
  scope: string;
  key: string;
  operation: string;
  fingerprint: string;
  /** The request running under the key (process and number). */
  holder: string;
}

/** A key already held: its first request, and the answer stored for it if any. */
export interface HeldKey {
  operation: string;
  fingerprint: string;
  status: number | null;
  headers: StoredHeaders | null;
  body: string | null;
  holder: string | null;
  /** The lease of the request running under it has not ended. */
  in_flight: boolean;
}

// The statements of every keyed request, compiled once (lib/query-shape.ts).
const claimShape = queryShape(
  { values: ['scope', 'key', 'operation', 'fingerprint', 'holder'], structure: ['leaseMs', 'retentionMs'] },
  (db, p: KeyClaim & { leaseMs: number; retentionMs: number }) => {
    const lockedUntil = sql<Date>`now() + ${sql.lit(p.leaseMs)} * interval '1 millisecond'`;
    const expiresAt = sql<Date>`now() + ${sql.lit(p.retentionMs)} * interval '1 millisecond'`;
    // One statement, committed without waiting for its WAL flush (see `claimKey`): the row comes
    // from a subquery that sets `synchronous_commit` for this statement's own transaction.
    return db
      .insertInto('idempotency_keys')
      .columns(['scope', 'key', 'operation', 'fingerprint', 'holder', 'locked_until', 'expires_at'])
      .expression(
        sql`select ${p.scope}::text, ${p.key}::text, ${p.operation}::text, ${p.fingerprint}::text, ${p.holder}::text, ${lockedUntil}, ${expiresAt}
          from (select set_config('synchronous_commit', 'off', true)) as async_commit`,
      )
      .onConflict((oc) =>
        oc
          .columns(['scope', 'key'])
          .doUpdateSet({
            operation: (eb) => eb.ref('excluded.operation'),
            fingerprint: (eb) => eb.ref('excluded.fingerprint'),
            holder: (eb) => eb.ref('excluded.holder'),
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
    .select(['operation', 'fingerprint', 'status', 'headers', 'body', 'holder', sql<boolean>`locked_until > now()`.as('in_flight')])
    .where('scope', '=', p.scope)
    .where('key', '=', p.key)
    .where('expires_at', '>', sql<Date>`now()`),
);

const takeOverShape = queryShape(
  { values: ['scope', 'key', 'holder', 'previous'], structure: ['leaseMs'] },
  (db, p: { scope: string; key: string; holder: string; previous: string | null; leaseMs: number }) =>
    db
      .updateTable('idempotency_keys')
      .set({ holder: p.holder, locked_until: sql<Date>`now() + ${sql.lit(p.leaseMs)} * interval '1 millisecond'` })
      .where('scope', '=', p.scope)
      .where('key', '=', p.key)
      .where('status', 'is', null)
      .where(sql<boolean>`holder is not distinct from ${p.previous}`)
      .returning('key'),
);

const storeShape = queryShape(
  { values: ['scope', 'key', 'holder', 'status', 'headers', 'body'] },
  (db, p: { scope: string; key: string; holder: string; status: number; headers: string; body: string }) =>
    db
      .updateTable('idempotency_keys')
      .set({ status: p.status, headers: p.headers, body: p.body, locked_until: sql<Date>`now()` })
      .where('scope', '=', p.scope)
      .where('key', '=', p.key)
      .where('holder', '=', p.holder)
      .where('status', 'is', null)
      .returning('key'),
);

const freeShape = queryShape({ values: ['scope', 'key', 'holder'] }, (db, p: { scope: string; key: string; holder: string }) =>
  db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', p.scope)
    .where('key', '=', p.key)
    .where('holder', '=', p.holder)
    .where('status', 'is', null),
);

/**
 * Claims `claim.key` for its request: true when it now holds it (a new key, or one past its
 * expiry, taken over in the same statement), false when the key is already known. One statement,
 * committed on its own, so of concurrent claims exactly one wins on every instance. Times are
 * the database's, so instances agree on them.
 *
 * Its COMMIT does not wait for the WAL to reach the disk (`synchronous_commit = off` for this
 * transaction only): a flush per claim was the main cost of a key under concurrency. Nothing is
 * lost by it. The claim is visible to every other session at once (visibility does not wait for
 * the flush), so concurrent duplicates meet it as before. It becomes durable no later than the
 * operation's own COMMIT, which is synchronous and flushes the WAL up to its commit record, so
 * the earlier claim record with it; and so does the synchronous storing of an error answer. A
 * claim lost in a crash therefore belongs to a request that committed nothing and answered
 * nothing stored: a retry claims the key again and runs, as after a claim freed.
 */
export async function claimKey(db: Db, claim: KeyClaim, leaseMs: number, retentionMs: number): Promise<boolean> {
  const row = await claimShape.executeTakeFirst(db, Object.assign({ leaseMs, retentionMs }, claim));
  return row !== undefined;
}

/** The key as it is held; undefined when it is free again (or expired). */
export function heldKey(db: Db, scope: string, key: string): Promise<HeldKey | undefined> {
  return heldShape.executeTakeFirst(db, { scope, key });
}

/**
 * Takes a key without an answer over from `previous` (a request that is gone): true when taken.
 * It waits for a transaction of `previous` still storing its answer, then finds the answer there.
 */
export async function takeOverKey(db: Db, claim: KeyClaim, previous: string | null, leaseMs: number): Promise<boolean> {
  const row = await takeOverShape.executeTakeFirst(db, { scope: claim.scope, key: claim.key, holder: claim.holder, previous, leaseMs });
  return row !== undefined;
}

/**
 * Stores the answer of the request holding the key (replayed from now on): false when the
 * request no longer holds it (taken over after its lease). Run in the operation's transaction
 * for an answer that commits with its rows; alone for an error, after the rollback.
 */
export async function storeAnswer(db: Db, claim: KeyClaim, status: number, headers: StoredHeaders, body: string): Promise<boolean> {
  const row = await storeShape.executeTakeFirst(db, {
    scope: claim.scope,
    key: claim.key,
    holder: claim.holder,
    status,
    headers: JSON.stringify(headers),
    body,
  });
  return row !== undefined;
}

/** Frees a key whose request committed nothing and stores no answer: a retry runs the request again. */
export async function freeKey(db: Db, claim: KeyClaim): Promise<void> {
  await freeShape.execute(db, { scope: claim.scope, key: claim.key, holder: claim.holder });
}

/** Deletes up to `limit` keys that expired before `now`; returns how many went. */
export async function deleteExpiredKeys(db: Db, now: Date, limit: number): Promise<number> {
  // Batches by physical row id: one short statement each, so a large sweep never holds many rows at once.
  const { rows } = await sql<{ key: string }>`
    delete from idempotency_keys where ctid = any(array(
      select ctid from idempotency_keys where expires_at < ${now} order by expires_at limit ${limit}))
    returning key`.execute(db);
  return rows.length;
}

/**
 * Locks the row `id` of `table` (FOR UPDATE) until the request transaction ends, and says whether
 * it exists: a conditional write's check and its write are one step on the row, and any other
 * write of it (which locks it too) waits for this one's COMMIT or ROLLBACK.
 */
export async function lockRow(db: Db, table: keyof Database & string, id: number): Promise<boolean> {
  const { rows } = await sql<{ id: number }>`select id from ${sql.table(table)} where id = ${id} for update`.execute(db);
  return rows.length > 0;
}
