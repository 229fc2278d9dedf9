import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectUnauthenticated } from '../../support/expect.js';
import { countRows, insertTransport, loadRefs, multipart, PDF, PNG, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('POST /trade/complaints (createComplaint)', () => {
  it('creates a PENDING complaint with its first history entry, in the creator country, for the transport customer', async () => {
    const fatou = refs.customer('Fatou');
    const transport = await insertTransport(t, refs, 'agent', fatou);
    const res = await t.call('createComplaint', {
      token: await t.token('agent'),
      body: {
        transportId: transport.id,
        complaintTypeId: refs.complaintType('Damaged goods'),
        label: 'Damaged pallets on delivery',
        description: 'Four of the twelve pallets arrived crushed.',
        location: 'Fos-sur-Mer, dock 4',
        amountPaid: 450,
        timeLost: 180,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toMatchObject({ label: 'Damaged pallets on delivery', status: 'PENDING', transportId: transport.id });
    const row = await t.db.selectFrom('complaints').selectAll().where('id', '=', res.body.result.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'PENDING',
      customer_id: fatou,
      amount_paid: 450,
      time_lost: 180,
      created_by: refs.user('agent'),
      complaint_type_id: refs.complaintType('Damaged goods'),
    });
    const france = await t.db.selectFrom('countries').select('id').where('code', '=', 'FR').executeTakeFirstOrThrow();
    expect(row.country_id).toBe(france.id);
    const history = await t.db.selectFrom('complaint_status_history').selectAll().where('complaint_id', '=', row.id).execute();
    expect(history).toEqual([
      expect.objectContaining({ status: 'PENDING', created_by: refs.user('agent'), created_by_type: 'AGENT', comment: null }),
    ]);
  });

  it('defaults the label to "Complaint about transport <loadingNumber>" and takes the customer given', async () => {
    const transport = await insertTransport(t, refs, 'agent', refs.customer('Fatou'));
    const res = await t.call('createComplaint', {
      token: await t.token('agent'),
      body: { transportId: transport.id, customerId: refs.customer('Pierre') },
    });
    expect(res.status).toBe(201);
    expect(res.body.result.label).toBe(`Complaint about transport ${transport.loading_number}`);
    const row = await t.db.selectFrom('complaints').select('customer_id').where('id', '=', res.body.result.id).executeTakeFirstOrThrow();
    expect(row.customer_id).toBe(refs.customer('Pierre'));
  });

  it('refuses a second complaint on the same transport with 409 COMPLAINT_EXISTS and the existing id', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const token = await t.token('agent');
    const first = await t.call('createComplaint', { token, body: { transportId: transport.id, label: 'First complaint' } });
    const second = await t.call('createComplaint', { token, body: { transportId: transport.id, label: 'Second complaint' } });
    expect(second.status).toBe(409);
    expect(second.body.errors).toEqual({ code: 'COMPLAINT_EXISTS', transportId: transport.id, existingComplaintId: first.body.result.id });
  });

  it('keeps one complaint out of 10 parallel creates on one transport: one 201, nine 409', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const token = await t.token('agent');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => t.call('createComplaint', { token, body: { transportId: transport.id, label: `Race ${i}` } })),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(refused).toHaveLength(9);
    for (const r of refused)
      expect(r.body.errors).toEqual({
        code: 'COMPLAINT_EXISTS',
        transportId: transport.id,
        existingComplaintId: created[0]!.body.result.id,
      });
    expect(await countRows(t, 'complaints', { column: 'transport_id', value: transport.id })).toBe(1);
    expect(await countRows(t, 'complaint_status_history', { column: 'complaint_id', value: created[0]!.body.result.id })).toBe(1);
  });

  it('answers 404 TRANSPORT_NOT_FOUND for an unknown transport and for one outside the caller scope', async () => {
    const unknown = await t.call('createComplaint', { token: await t.token('agent'), body: { transportId: 99999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: 99999 });

    const others = await insertTransport(t, refs, 'agent2');
    const hidden = await t.call('createComplaint', { token: await t.token('agent'), body: { transportId: others.id } });
    expect(hidden.status).toBe(404);
    expect(hidden.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: others.id });
    // a team manager reaches the transports of their team only
    const managerHidden = await t.call('createComplaint', { token: await t.token('manager'), body: { transportId: others.id } });
    expect(managerHidden.status).toBe(404);
    const team = await insertTransport(t, refs, 'agent');
    const managerOk = await t.call('createComplaint', { token: await t.token('manager'), body: { transportId: team.id } });
    expect(managerOk.status).toBe(201);
  });

  it('answers 404 CUSTOMER_NOT_FOUND for an actor who is not a customer', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const staffActor = await t.db.selectFrom('actors').select('id').where('actor_role', '=', 'AGENT').executeTakeFirstOrThrow();
    const res = await t.call('createComplaint', {
      token: await t.token('agent'),
      body: { transportId: transport.id, customerId: staffActor.id },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: staffActor.id });
    expect(await countRows(t, 'complaints', { column: 'transport_id', value: transport.id })).toBe(0);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an inactive or unknown complaint type', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const token = await t.token('agent');
    const legacy = refs.complaintType('Other (legacy)');
    const inactive = await t.call('createComplaint', { token, body: { transportId: transport.id, complaintTypeId: legacy } });
    expect(inactive.status).toBe(404);
    expect(inactive.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'complaintType', id: legacy });
    const unknown = await t.call('createComplaint', { token, body: { transportId: transport.id, complaintTypeId: 9999 } });
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'complaintType', id: 9999 });
  });

  it('answers validation errors as a map of field name to message', async () => {
    const res = await t.call('createComplaint', {
      token: await t.token('agent'),
      payload: { transportId: 'abc', label: 'ab', amountPaid: -1, reference: 'X-1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({
      transportId: 'must be integer',
      label: 'must NOT have fewer than 3 characters',
      amountPaid: 'must be >= 0',
      reference: 'is not an accepted field',
    });
  });

  it('links pending attachments of the caller given in attachmentIds, in the same transaction', async () => {
    const token = await t.token('agent');
    const form = await multipart({}, [
      { name: 'photo.png', bytes: PNG },
      { name: 'note.pdf', bytes: PDF },
    ]);
    const upload = await t.call('uploadComplaintAttachments', { token, ...form });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const ids: number[] = upload.body.result.uploaded.map((u: { id: number }) => u.id);

    const transport = await insertTransport(t, refs, 'agent');
    const res = await t.call('createComplaint', { token, body: { transportId: transport.id, attachmentIds: ids } });
    expect(res.status).toBe(201);
    const detail = await t.call('getComplaintById', { token, params: { id: res.body.result.id } });
    expect(detail.body.result.attachments).toEqual([
      { id: ids[0], type: 'image/png', url: `/trade/complaints/attachments/${ids[0]}`, filename: 'photo.png' },
      { id: ids[1], type: 'application/pdf', url: `/trade/complaints/attachments/${ids[1]}`, filename: 'note.pdf' },
    ]);
  });

  it('refuses attachments that are not pending uploads of the caller with 404 and creates nothing', async () => {
    const mine = await t.call('uploadComplaintAttachments', {
      token: await t.token('agent'),
      ...(await multipart({}, [{ name: 'a.png', bytes: PNG }])),
    });
    const theirs = await t.call('uploadComplaintAttachments', {
      token: await t.token('agent2'),
      ...(await multipart({}, [{ name: 'b.png', bytes: PNG }])),
    });
    const mineId: number = mine.body.result.uploaded[0]!.id;
    const theirsId: number = theirs.body.result.uploaded[0]!.id;

    const transport = await insertTransport(t, refs, 'agent');
    const res = await t.call('createComplaint', {
      token: await t.token('agent'),
      body: { transportId: transport.id, attachmentIds: [mineId, theirsId] },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'complaintAttachment', id: theirsId });
    // rolled back: no complaint, no history, and my upload is still pending
    expect(await countRows(t, 'complaints', { column: 'transport_id', value: transport.id })).toBe(0);
    const attachment = await t.db
      .selectFrom('complaint_attachments')
      .select('complaint_id')
      .where('id', '=', mineId)
      .executeTakeFirstOrThrow();
    expect(attachment.complaint_id).toBeNull();
  });

  it('answers 401 without a token', async () => {
    const before = await countRows(t, 'complaints', { column: 'transport_id', value: 1 });
    const res = await t.call('createComplaint', { body: { transportId: 1 } });
    expectUnauthenticated(res);
    expect(await countRows(t, 'complaints', { column: 'transport_id', value: 1 })).toBe(before);
  });
});
