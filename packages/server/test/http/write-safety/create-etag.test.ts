import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { listOperations, loadContract } from '../../../src/contract.js';
import { writePolicies } from '../../../src/http/write-safety/policy.js';
import { insertTransport, loadRefs as complaintRefs } from '../../modules/complaints/fixtures.js';
import { loadRefs, type Refs, transportBody } from '../../modules/transports/fixtures.js';
import { useTestApp } from '../../support/app.js';

/*
 * A create answers with the new resource's ETag (the contract's introduction, "Conditional
 * requests", New ETag): the tag its GET sends the creator, so the first conditional write needs
 * no GET. From the 201's own body when it is the GET's representation, else from the resource's
 * registered representation (a complaint, a webhook whose 201 also carries its secret).
 */

const ETAG = /^"[A-Za-z0-9_-]{22}"$/;
const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('the ETag of a 201', () => {
  it('is declared on the 201 of every create whose resource has a GET with an ETag, and on no other', () => {
    const doc = loadContract();
    const creates = new Set([...writePolicies(doc)].filter(([, p]) => p.creates).map(([id]) => id));
    expect(creates.size).toBeGreaterThanOrEqual(19);
    const declared = new Set<string>();
    for (const { operation } of listOperations(doc)) {
      const created = (operation.responses as Record<string, { headers?: Record<string, unknown> }>)['201'];
      if (created?.headers?.ETag) declared.add(operation.operationId);
    }
    expect([...declared].sort()).toEqual([...creates].sort());
  });

  it('createTransport: the GET’s tag, and a PATCH with it as If-Match applies', async () => {
    const token = await t.token('agent');
    const created = await t.call('createTransport', { token, body: transportBody(refs) });
    expect(created.status).toBe(201);
    const etag = created.headers.etag as string;
    expect(etag).toMatch(ETAG);
    const id = created.body.result.id;
    expect((await t.call('getTransportById', { token, params: { id } })).headers.etag).toBe(etag);
    const patched = await t.call('updateTransport', {
      token,
      params: { id },
      body: { productQuantity: 30 },
      headers: { 'if-match': etag },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.result.productQuantity).toBe(30);
  });

  it('createComplaint (201 not the GET’s representation): the GET’s tag, and a PATCH with it applies', async () => {
    const token = await t.token('agent');
    const transport = await insertTransport(t, await complaintRefs(t), 'agent');
    const created = await t.call('createComplaint', { token, body: { transportId: transport.id, label: 'Pallets crushed at unloading' } });
    expect(created.status).toBe(201);
    const etag = created.headers.etag as string;
    expect(etag).toMatch(ETAG);
    const createdId = created.body.result.id;
    expect((await t.call('getComplaintById', { token, params: { id: createdId } })).headers.etag).toBe(etag);
    const patched = await t.call('updateComplaint', {
      token,
      params: { id: createdId },
      body: { timeLost: 90 },
      headers: { 'if-match': etag },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.result.timeLost).toBe(90);
  });

  it('createWebhook under a key: the GET’s tag on the 201 and on its replay (secret null there), and a PATCH with it applies', async () => {
    const token = await t.token('admin');
    const key = randomUUID();
    const body = { url: 'http://127.0.0.1:9/create-etag-hook', eventTypes: ['transport.created' as const] };
    const created = await t.call('createWebhook', { token, body, headers: { 'idempotency-key': key } });
    expect(created.status).toBe(201);
    expect(created.body.result.secret).toEqual(expect.any(String));
    const etag = created.headers.etag as string;
    expect(etag).toMatch(ETAG);
    const id = created.body.result.id;
    expect((await t.call('getWebhook', { token, params: { id } })).headers.etag).toBe(etag);
    const replay = await t.call('createWebhook', { token, body, headers: { 'idempotency-key': key } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.result.secret).toBeNull();
    expect(replay.headers.etag).toBe(etag);
    const patched = await t.call('updateWebhook', { token, params: { id }, body: { isActive: false }, headers: { 'if-match': etag } });
    expect(patched.status).toBe(200);
    expect(patched.body.result.isActive).toBe(false);
  });

  it('createConfigTag: the GET’s tag, and a status change with it applies; a stale one is 412', async () => {
    const token = await t.token('supervisor');
    const created = await t.call('createConfigTag', { token, body: { name: `tag-${randomUUID().slice(0, 8)}`, color: '#00ACC1' } });
    expect(created.status).toBe(201);
    const etag = created.headers.etag as string;
    const id = created.body.result.id;
    expect((await t.call('getConfigTagById', { token, params: { id } })).headers.etag).toBe(etag);
    const changed = await t.call('setConfigTagStatus', { token, params: { id }, body: { isActive: false }, headers: { 'if-match': etag } });
    expect(changed.status).toBe(200);
    const stale = await t.call('setConfigTagStatus', { token, params: { id }, body: { isActive: true }, headers: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    expect((await t.call('getConfigTagById', { token, params: { id } })).body.result.isActive).toBe(false);
  });
});
