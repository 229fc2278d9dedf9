import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';
import { databaseFaults } from '../../support/faults.js';
import { loadRefs, type Refs, transportBody } from '../../modules/transports/fixtures.js';

/*
 * The outcome of a keyed request commits with its rows (the contract's introduction, "Idempotent
 * retries"): a COMMIT that happened is never run again, whatever fails after it; a request that
 * never committed runs again on its retry. Faults are injected at the connection, on the embedded
 * database and on PostgreSQL alike (test/ops/lost-commit.test.ts loses a real COMMIT).
 */

const faults = databaseFaults();
const t = useTestApp({}, { wrapDialect: faults.wrapDialect });
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const transportCount = async () => Number((await sql<{ n: number }>`select count(*)::int as n from transports`.execute(t.db)).rows[0]!.n);
const create = async (key: string) =>
  t.call('createTransport', { token: await t.token('agent'), body: transportBody(refs), headers: { 'idempotency-key': key } });
const isCommit = (text: string) => /^commit$/i.test(text.trim());
const storesAnswer = (text: string) => /^update "idempotency_keys" set "status"/.test(text);

describe('a keyed create whose connection fails around its COMMIT', () => {
  it('replays the committed answer when the COMMIT succeeded and its answer was lost: one row', async () => {
    await create(randomUUID()); // the token and the statements are ready
    const key = randomUUID();
    const before = await transportCount();
    faults.failAfter(isCommit);
    const lost = await create(key);
    expect(faults.pending()).toBe(0);
    expectError(lost, 503, 'SERVICE_UNAVAILABLE');
    expect(await transportCount()).toBe(before + 1);
    const retry = await create(key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const row = await t.db.selectFrom('transports').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(retry.body.result.id).toBe(row.id);
    expect(await transportCount()).toBe(before + 1);
  });

  it('runs the request again when storing its answer failed before the COMMIT: nothing was written, one row after the retry', async () => {
    const key = randomUUID();
    const before = await transportCount();
    faults.failBefore(storesAnswer);
    const failed = await create(key);
    expect(faults.pending()).toBe(0);
    expectError(failed, 503, 'SERVICE_UNAVAILABLE');
    expect(await transportCount()).toBe(before);
    const retry = await create(key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await transportCount()).toBe(before + 1);
    expect((await create(key)).headers['idempotent-replayed']).toBe('true');
  });

  it('runs the request again when its COMMIT failed before it reached the database', async () => {
    const key = randomUUID();
    const before = await transportCount();
    faults.failBefore(isCommit);
    expectError(await create(key), 503, 'SERVICE_UNAVAILABLE');
    expect(await transportCount()).toBe(before);
    const retry = await create(key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await transportCount()).toBe(before + 1);
  });
});
