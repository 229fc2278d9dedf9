import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectError, expectInvalid } from '../../support/expect.js';
import { createTransport, loadRefs, type Refs, transportBody } from '../../modules/transports/fixtures.js';

/*
 * Idempotent retries (the contract's introduction, "Idempotent retries"): a POST with an
 * `Idempotency-Key` is run once per caller and key; its answer, success or execution error, is
 * replayed for 24 hours.
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

  it('runs one of ten parallel copies of a key: one 201, the others 409 IDEMPOTENCY_KEY_IN_USE with Retry-After while it runs, then the replay', async () => {
    const key = randomUUID();
    const before = await transportCount();
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(key)));
    expect(await transportCount()).toBe(before + 1);
    const statuses = answers.map((a) => `${a.status}${a.headers['idempotent-replayed'] ? ' replayed' : ''}`).join(',');
    const created = answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined);
    expect(created, statuses).toHaveLength(1);
    // A copy that arrives once the first is complete gets its replay (the same bytes), any other 409.
    const replayed = answers.filter((a) => a.headers['idempotent-replayed'] === 'true');
    for (const answer of replayed) expect(answer.raw.body).toBe(created[0]!.raw.body);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.length + replayed.length).toBe(9);
    expect(refused.length, statuses).toBeGreaterThan(0);
    for (const answer of refused) {
      expectError(answer, 409, 'IDEMPOTENCY_KEY_IN_USE', { retryAfterSeconds: 1 });
      expect(answer.headers['retry-after']).toBe('1');
    }
    const after = await create(key);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.raw.body).toBe(created[0]!.raw.body);
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

  it('replays an execution error (404 of a referenced record) and answers 422 to another body under its key', async () => {
    const key = randomUUID();
    const before = await transportCount();
    const body = transportBody(refs, { vehicleTypeId: 2_000_000 });
    const failed = await create(key, body);
    expectError(failed, 404, 'VEHICLE_TYPE_NOT_FOUND');
    expect(await keyRow(key)).toMatchObject({ status: 404, body: failed.raw.body });
    const retry = await create(key, body);
    expectError(retry, 404, 'VEHICLE_TYPE_NOT_FOUND');
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.raw.body).toBe(failed.raw.body);
    expectError(await create(key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await transportCount()).toBe(before);
  });

  it('stores nothing for a request refused before it ran (400): the key runs the corrected request', async () => {
    const key = randomUUID();
    const before = await transportCount();
    const refused = await t.call('createTransport', {
      token: await t.token('agent'),
      payload: { ...transportBody(refs), loadingPoint: 42 },
      headers: { 'idempotency-key': key },
    });
    expectInvalid(refused, 'body/loadingPoint must be string');
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

  it('runs again a key whose request committed nothing and is gone; waits for one still within its lease elsewhere', async () => {
    const key = randomUUID();
    const first = await create(key);
    expect(first.status).toBe(201);
    // A key as a request of another instance leaves it when it stops before its COMMIT: no answer.
    const orphan = { status: null, body: null, headers: null, holder: 'another-instance:7' };
    await t.db
      .updateTable('idempotency_keys')
      .set({ ...orphan, locked_until: new Date(Date.now() + 60_000) })
      .where('key', '=', key)
      .execute();
    const before = await transportCount();
    const early = await create(key);
    expectError(early, 409, 'IDEMPOTENCY_KEY_IN_USE', { retryAfterSeconds: 1 });
    expect(early.headers['retry-after']).toBe('1');
    await t.db
      .updateTable('idempotency_keys')
      .set({ ...orphan, locked_until: new Date(Date.now() - 1000) })
      .where('key', '=', key)
      .execute();
    const retry = await create(key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await transportCount()).toBe(before + 1);
    expect(await keyRow(key)).toMatchObject({ status: 201, body: retry.raw.body });
    expect((await create(key)).headers['idempotent-replayed']).toBe('true');
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
