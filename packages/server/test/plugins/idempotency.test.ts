import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { expectError, expectInvalid } from '../support/expect.js';
import { createTransport, loadRefs, type Refs, transportBody } from '../modules/transports/fixtures.js';

/*
 * Idempotent retries (the contract's introduction, "Idempotent retries"): a POST with an
 * `Idempotency-Key` is run once per caller and key; its success is replayed for 24 hours.
 */

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const transportCount = async () => Number((await sql<{ n: number }>`select count(*)::int as n from transports`.execute(t.db)).rows[0]!.n);
const keyRow = (key: string) => t.db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirst();

async function create(key: string, body = transportBody(refs), user: 'agent' | 'agent2' = 'agent') {
  return t.call('createTransport', { token: await t.token(user), body, headers: { 'idempotency-key': key } });
}

describe('Idempotency-Key on POST /trade/transports', () => {
  it('replays the first answer to a retry with the same key, with Idempotent-Replayed, and creates one transport', async () => {
    const key = randomUUID();
    const before = await transportCount();
    const first = await create(key);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await create(key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.raw.body).toBe(first.raw.body);
    expect(retry.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(await transportCount()).toBe(before + 1);
    const stored = await keyRow(key);
    expect(stored).toMatchObject({ operation: 'createTransport', status: 201, body: first.raw.body });
    const retention = stored!.expires_at.getTime() - stored!.created_at.getTime();
    expect(Math.abs(retention - 24 * 3600_000)).toBeLessThan(5_000);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED to the same key with another body, and creates nothing', async () => {
    const key = randomUUID();
    expect((await create(key)).status).toBe(201);
    const before = await transportCount();
    const other = await create(key, transportBody(refs, { loadingPoint: 'Grenoble, Sassenage' }));
    expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await transportCount()).toBe(before);
  });

  it('binds the key to the body whatever its key order', async () => {
    const key = randomUUID();
    const body = transportBody(refs);
    expect((await create(key, body)).status).toBe(201);
    const reordered = Object.fromEntries(Object.entries(body).reverse()) as typeof body;
    const retry = await create(key, reordered);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('runs one of 20 concurrent requests with one key: one row, every answer 201 or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const key = randomUUID();
    const before = await transportCount();
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(key)));
    expect(await transportCount()).toBe(before + 1);
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(','),
    ).toBe(true);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.result.id)).size).toBe(1);
    expect(created.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status === 409)) {
      expectError(refused, 409, 'IDEMPOTENCY_KEY_IN_USE', { retryAfterSeconds: 1 });
      expect(refused.headers['retry-after']).toBe('1');
    }
  });

  it('scopes keys to the caller: another user with the same key and body makes another transport', async () => {
    const key = randomUUID();
    const mine = await create(key);
    const theirs = await create(key, transportBody(refs), 'agent2');
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.result.id).not.toBe(mine.body.result.id);
    const owners = await t.db
      .selectFrom('transports')
      .select(['id', 'created_by'])
      .where('id', 'in', [mine.body.result.id, theirs.body.result.id])
      .orderBy('id')
      .execute();
    expect(new Set(owners.map((o) => o.created_by)).size).toBe(2);
  });

  it('runs a request without a key every time', async () => {
    const before = await transportCount();
    const body = transportBody(refs);
    const a = await t.call('createTransport', { token: await t.token('agent'), body });
    const b = await t.call('createTransport', { token: await t.token('agent'), body });
    expect(b.body.result.id).not.toBe(a.body.result.id);
    expect(await transportCount()).toBe(before + 2);
  });

  it('does not store a failure: the key is free again and its corrected retry succeeds', async () => {
    const key = randomUUID();
    const before = await transportCount();
    const failed = await create(key, transportBody(refs, { vehicleTypeId: 2_000_000 }));
    expectError(failed, 404, 'VEHICLE_TYPE_NOT_FOUND');
    expect(await keyRow(key)).toBeUndefined();
    const fixed = await create(key);
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(await transportCount()).toBe(before + 1);
  });

  it('refuses a malformed key with 400 naming the header', async () => {
    const res = await create('has space');
    expectInvalid(res, /^headers\/idempotency-key must match pattern/);
    const long = await create('k'.repeat(256));
    expectInvalid(long, 'headers/idempotency-key must NOT have more than 255 characters');
  });

  it('answers 409 IDEMPOTENCY_OUTCOME_UNKNOWN for a key whose request stopped without an answer, and never runs it again', async () => {
    const key = randomUUID();
    expect((await create(key)).status).toBe(201);
    // As if the server had stopped between the write and storing the answer, more than a lease ago.
    await t.db
      .updateTable('idempotency_keys')
      .set({ status: null, body: null, headers: null, locked_until: new Date(Date.now() - 1000) })
      .where('key', '=', key)
      .execute();
    const before = await transportCount();
    const retry = await create(key);
    expectError(retry, 409, 'IDEMPOTENCY_OUTCOME_UNKNOWN');
    expect(retry.headers['retry-after']).toBeUndefined();
    expect(await transportCount()).toBe(before);
  });

  it('forgets a key after 24 hours: an expired key runs again, and the sweep removes expired keys only', async () => {
    const key = randomUUID();
    const kept = randomUUID();
    const first = await create(key);
    await create(kept);
    await t.db
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('key', '=', key)
      .execute();
    const again = await create(key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.result.id).not.toBe(first.body.result.id);

    await t.db
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('key', '=', key)
      .execute();
    const removed = await t.app.sweepIdempotencyKeys(new Date());
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await keyRow(key)).toBeUndefined();
    expect(await keyRow(kept)).toMatchObject({ status: 201 });
    // A day later, every key of this test is gone.
    await t.app.sweepIdempotencyKeys(new Date(Date.now() + 24 * 3600_000 + 60_000));
    expect(await keyRow(kept)).toBeUndefined();
  });
});

describe('Idempotency-Key on uploads (multipart)', () => {
  const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

  async function upload(key: string, transportId: number, bytes: Buffer) {
    const form = new FormData();
    form.append('transportId', String(transportId));
    form.append('documentType', 'DRIVING_LICENSE');
    form.append('files', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'permis.pdf');
    const res = new Response(form);
    const payload = Buffer.from(await res.arrayBuffer());
    return t.call('uploadTransportDocuments', {
      token: await t.token('agent'),
      payload,
      headers: { 'content-type': res.headers.get('content-type')!, 'idempotency-key': key },
    });
  }
  const documents = (transportId: number) =>
    t.db.selectFrom('transport_documents').select('id').where('transport_id', '=', transportId).execute();

  it('stores one set of documents for a retried upload, and refuses the key with other file bytes', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const key = randomUUID();
    const first = await upload(key, transport.id, PDF);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const retry = await upload(key, transport.id, PDF);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await documents(transport.id)).toHaveLength(1);

    const otherBytes = Buffer.concat([PDF, Buffer.from('% another file\n')]);
    expectError(await upload(key, transport.id, otherBytes), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await documents(transport.id)).toHaveLength(1);
  });
});
