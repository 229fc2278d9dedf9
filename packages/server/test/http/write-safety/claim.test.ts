import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { claimKey } from '../../../src/http/write-safety/repository.js';
import { useTestApp } from '../../support/app.js';

/*
 * The claim of an `Idempotency-Key` commits without waiting for the disk (repository.ts, `claimKey`):
 * its statement sets `synchronous_commit = off` for its own transaction only, never for the
 * connection's later transactions (the operation's COMMIT, which makes the claim durable, waits).
 */

const t = useTestApp();

const setting = async (db: typeof t.db) =>
  (await sql<{ value: string }>`select current_setting('synchronous_commit') as value`.execute(db)).rows[0]!.value;

describe('the claim of a key', () => {
  it('turns synchronous_commit off for its own transaction only, and claims once', async () => {
    const claim = { scope: 'user:0', key: randomUUID(), operation: 'createTransport', fingerprint: 'f', holder: `test:${randomUUID()}` };
    const { inside, claimed, again } = await t.db.transaction().execute(async (trx) => {
      const before = await setting(trx);
      expect(before).not.toBe('off');
      const claimed = await claimKey(trx, claim, 60_000, 3600_000);
      const again = await claimKey(trx, Object.assign({}, claim, { holder: 'another' }), 60_000, 3600_000);
      return { inside: await setting(trx), claimed, again };
    });
    expect(claimed).toBe(true);
    expect(again, 'a key already claimed is not claimed again').toBe(false);
    expect(inside).toBe('off');
    await t.db.connection().execute(async (db) => {
      expect(await setting(db)).not.toBe('off');
    });
    const row = await t.db.selectFrom('idempotency_keys').select('holder').where('key', '=', claim.key).executeTakeFirstOrThrow();
    expect(row.holder).toBe(claim.holder);
    await t.db.deleteFrom('idempotency_keys').where('key', '=', claim.key).execute();
  });
});
