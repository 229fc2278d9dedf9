import { beforeAll, describe, expect, it } from 'vitest';
import { type DemoUser, useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';
import { applyActions, createTransport, loadRefs, type Refs } from '../transports/fixtures.js';
import { JPEG, multipart, type Part, pdfText, pngImage } from './support.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const SIGNATURE = pngImage(40, 16);

/** A transport of `agent` moved to IN_PROGRESS (both validations, then START). */
async function startedTransport(user: DemoUser = 'agent') {
  const transport = await createTransport(t, refs, user);
  await applyActions(t, transport.id, ['VALIDATE', 'START']);
  return transport;
}

async function deliver(user: DemoUser, id: number, fields: Record<string, string>, files: Part[]) {
  return t.call('createProofOfDelivery', { token: await t.token(user), params: { id }, ...(await multipart(fields, files)) });
}

const signature: Part = { field: 'signature', name: 'signature.png', bytes: SIGNATURE, type: 'image/png' };

const proofRows = (transportId: number) =>
  t.db
    .selectFrom('proofs_of_delivery as p')
    .innerJoin('proof_of_delivery_files as f', 'f.proof_id', 'p.id')
    .select(['f.position', 'f.filename', 'f.mime_type', 'f.size'])
    .where('p.transport_id', '=', transportId)
    .orderBy('f.position')
    .execute();

describe('POST /trade/transports/{id}/proof-of-delivery (createProofOfDelivery)', () => {
  it('records the receiver, signature and photos, completes a transport IN_PROGRESS and emits transport.delivered', async () => {
    const transport = await startedTransport();
    const res = await deliver('agent', transport.id, { receiverName: '  Claire Martin ', note: 'Two pallets with torn film' }, [
      signature,
      { field: 'photos', name: 'front.jpg', bytes: JPEG, type: 'image/jpeg' },
      { field: 'photos', name: 'side.png', bytes: pngImage(), type: 'image/png' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.message).toBe('Proof of delivery recorded; transport completed');
    expect(res.body.result).toMatchObject({
      transportId: transport.id,
      receiverName: 'Claire Martin',
      note: 'Two pallets with torn film',
      signature: { mimeType: 'image/png', size: SIGNATURE.length },
      photoCount: 2,
      completedTransport: true,
      recordedBy: { id: refs.user('agent'), username: 'agent' },
      receiptUrl: `/trade/transports/${transport.id}/proof-of-delivery/receipt`,
    });
    expect(await proofRows(transport.id)).toEqual([
      { position: 0, filename: 'signature.png', mime_type: 'image/png', size: SIGNATURE.length },
      { position: 1, filename: 'front.jpg', mime_type: 'image/jpeg', size: JPEG.length },
      { position: 2, filename: 'side.png', mime_type: 'image/png', size: pngImage().length },
    ]);

    const detail = await t.call('getTransportById', { token: await t.token('agent'), params: { id: transport.id } });
    expect(detail.body.result.status).toBe('COMPLETED');
    const history = await t.call('getTransportStatusHistory', { token: await t.token('supervisor'), params: { id: transport.id } });
    expect(history.body.result.at(-1)).toMatchObject({
      fromStatus: 'IN_PROGRESS',
      toStatus: 'COMPLETED',
      action: 'FINISH',
      comment: 'Proof of delivery signed by Claire Martin',
      createdBy: { id: refs.user('agent') },
    });

    const events = await t.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('resource_type', '=', 'transport')
      .where('resource_id', '=', transport.id)
      .where('type', 'in', ['transport.delivered', 'transport.status_changed'])
      .orderBy('id')
      .execute();
    // Two validations and START, then the FINISH the proof applied, then the delivery.
    expect(events.map((e) => e.type)).toEqual([...Array(4).fill('transport.status_changed'), 'transport.delivered']);
    expect(events.at(-2)!.data).toMatchObject({ action: 'FINISH', fromStatus: 'IN_PROGRESS', toStatus: 'COMPLETED' });
    expect(events.at(-1)!.data).toEqual({ transportId: transport.id, status: 'COMPLETED', proofOfDelivery: res.body.result });
  });

  it('puts the proof on the transport timeline, after the status change it caused at the same instant', async () => {
    const transport = await startedTransport();
    const res = await deliver('agent', transport.id, { receiverName: 'Claire Martin' }, [
      signature,
      { field: 'photos', name: 'front.jpg', bytes: JPEG, type: 'image/jpeg' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const timeline = await t.call('getTransportTimeline', {
      token: await t.token('agent'),
      params: { id: transport.id },
      query: { limit: 100 },
    });
    expect(timeline.status).toBe(200);
    const entries = timeline.body.result.data;
    expect(entries.slice(-2).map((e) => [e.type, e.status?.action ?? null])).toEqual([
      ['STATUS_CHANGED', 'FINISH'],
      ['PROOF_OF_DELIVERY', null],
    ]);
    expect(entries.at(-1)).toEqual({
      id: `PROOF_OF_DELIVERY:${res.body.result.id}`,
      type: 'PROOF_OF_DELIVERY',
      occurredAt: res.body.result.deliveredAt,
      summary: 'Delivered, signed by Claire Martin',
      proofOfDelivery: { id: res.body.result.id, receiverName: 'Claire Martin', photoCount: 1 },
    });
  });

  it('takes the proof of a transport already COMPLETED without moving it, and refuses a second proof', async () => {
    const transport = await startedTransport();
    await applyActions(t, transport.id, ['FINISH']);
    const first = await deliver('agent', transport.id, { receiverName: 'Jonas Weber' }, [signature]);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.result).toMatchObject({ completedTransport: false, photoCount: 0, note: null });
    expect(first.body.message).toBe('Proof of delivery recorded');

    const second = await deliver('agent', transport.id, { receiverName: 'Someone Else' }, [signature]);
    expectError(second, 409, 'ALREADY_EXISTS', { resource: 'proof of delivery', field: 'transportId', value: String(transport.id) });
    const kept = await t.db.selectFrom('proofs_of_delivery').select('receiver_name').where('transport_id', '=', transport.id).execute();
    expect(kept).toEqual([{ receiver_name: 'Jonas Weber' }]);
  });

  it('refuses a signature whose bytes are not a picture (a .png that is text), storing nothing', async () => {
    const transport = await startedTransport();
    const res = await deliver('agent', transport.id, { receiverName: 'Claire Martin' }, [
      { field: 'signature', name: 'signature.png', bytes: Buffer.from('this is not a picture\n'.repeat(20)), type: 'image/png' },
      { field: 'photos', name: 'front.jpg', bytes: JPEG, type: 'image/jpeg' },
    ]);
    expectError(res, 400, 'UPLOAD_REJECTED');
    expect(res.body.errors.rejected).toEqual([{ filename: 'signature.png', code: 'FILE_TYPE_NOT_ALLOWED', message: expect.any(String) }]);
    expect(await proofRows(transport.id)).toEqual([]);
    const detail = await t.call('getTransportById', { token: await t.token('agent'), params: { id: transport.id } });
    expect(detail.body.result.status).toBe('IN_PROGRESS');
  });

  it('refuses a transport that has not started (409 NOT_EDITABLE) and a missing signature (400)', async () => {
    const transport = await createTransport(t, refs, 'agent');
    await applyActions(t, transport.id, ['VALIDATE']);
    const early = await deliver('agent', transport.id, { receiverName: 'Claire Martin' }, [signature]);
    expectError(early, 409, 'NOT_EDITABLE', { resource: 'transport', id: transport.id, status: 'VALIDATED' });

    const unsigned = await deliver('agent', transport.id, { receiverName: 'Claire Martin' }, []);
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.errors).toContainEqual(expect.stringContaining('signature'));
    expect(await proofRows(transport.id)).toEqual([]);
  });

  it("answers 404 for another agent's transport, on both operations, and lets the agent's team manager read the receipt", async () => {
    const transport = await startedTransport();
    const foreign = await deliver('agent2', transport.id, { receiverName: 'Claire Martin' }, [signature]);
    expectError(foreign, 404, 'TRANSPORT_NOT_FOUND', { transportId: transport.id });
    expect(await proofRows(transport.id)).toEqual([]);

    const none = await t.call('getProofOfDeliveryReceipt', { token: await t.token('agent'), params: { id: transport.id } });
    expectError(none, 404, 'RESOURCE_NOT_FOUND', { resource: 'proof of delivery', id: transport.id });

    expect((await deliver('agent', transport.id, { receiverName: 'Claire Martin' }, [signature])).status).toBe(201);
    const hidden = await t.call('getProofOfDeliveryReceipt', { token: await t.token('agent2'), params: { id: transport.id } });
    expectError(hidden, 404, 'TRANSPORT_NOT_FOUND', { transportId: transport.id });
    const manager = await t.call('getProofOfDeliveryReceipt', { token: await t.token('manager'), params: { id: transport.id } });
    expect(manager.status).toBe(200);
    expect(pdfText(manager.body)).toContain('Claire Martin');
  });
});

describe('GET /trade/transports/{id}/proof-of-delivery/receipt (getProofOfDeliveryReceipt)', () => {
  it('is a PDF naming the transport, its parties, the receiver, the photo count, with the signature drawn', async () => {
    const transport = await startedTransport();
    await deliver('agent', transport.id, { receiverName: 'Claire Martin', note: 'Accepted with reserve' }, [
      signature,
      { field: 'photos', name: 'front.jpg', bytes: JPEG, type: 'image/jpeg' },
    ]);
    const res = await t.call('getProofOfDeliveryReceipt', { token: await t.token('agent'), params: { id: transport.id } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(String(res.headers['content-disposition'])).toContain(`delivery-${transport.loadingNumber}.pdf`);
    const body = res.body as Buffer;
    expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(body);
    for (const expected of [
      'Proof of delivery',
      `Transport ${transport.loadingNumber}`,
      'Lyon, Port Edouard Herriot',
      'Marseille, Fos-sur-Mer terminal',
      'Marc Dubois, +33 6 45 21 87 90',
      'Claire Martin',
      'Accepted with reserve',
      'agent',
    ])
      expect(text).toContain(expected);
    expect(text).toMatch(/PHOTOS OF THE LOAD\n1\n/);
    // The signature is an image XObject of its size, not the fallback text.
    expect(body.toString('latin1')).toMatch(/\/Subtype \/Image[\s\S]*?\/Width 40[\s\S]*?\/Height 16/);
    expect(text).not.toContain('could not be drawn');
  });
});
