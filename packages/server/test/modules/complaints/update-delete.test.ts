import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { countRows, fileComplaint, loadRefs, moveTo, multipart, PNG, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('PATCH /trade/complaints/{id} (updateComplaint)', () => {
  it('changes only the fields sent while PENDING, and null clears an optional field', async () => {
    const { id } = await fileComplaint(
      t,
      refs,
      'agent',
      {
        description: 'Four pallets crushed.',
        location: 'Dock 4',
        amountPaid: 450,
        complaintTypeId: refs.complaintType('Damaged goods'),
      },
      refs.customer('Fatou'),
    );
    const token = await t.token('agent');
    const res = await t.call('updateComplaint', {
      token,
      params: { id },
      body: { location: 'Dock 4, bay B', timeLost: 240, amountPaid: null, customerId: refs.customer('Pierre'), complaintTypeId: null },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      label: 'Pallets crushed at unloading',
      description: 'Four pallets crushed.',
      location: 'Dock 4, bay B',
      timeLost: 240,
      amountPaid: null,
      complaintType: null,
      status: 'PENDING',
      customer: { id: refs.customer('Pierre'), firstName: 'Pierre' },
    });
    expect(new Date(res.body.result.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(res.body.result.createdAt).getTime());
  });

  it('refuses changes once the complaint left PENDING with 409 NOT_EDITABLE', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    await moveTo(t, id, ['IN_PROGRESS']);
    const res = await t.call('updateComplaint', { token: await t.token('agent'), params: { id }, body: { location: 'Late change' } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'complaint', id, status: 'IN_PROGRESS' });
  });

  it('answers 404 for the complaint of another agent, lets the team manager change it', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const other = await t.call('updateComplaint', { token: await t.token('agent2'), params: { id }, body: { location: 'Hijack' } });
    expect(other.status).toBe(404);
    expect(other.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    const manager = await t.call('updateComplaint', {
      token: await t.token('manager'),
      params: { id },
      body: { location: 'Checked by the manager' },
    });
    expect(manager.status).toBe(200);
    expect(manager.body.result.location).toBe('Checked by the manager');
  });

  it('answers 404 CUSTOMER_NOT_FOUND and RESOURCE_NOT_FOUND for a bad customer or an inactive type', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const token = await t.token('agent');
    const customer = await t.call('updateComplaint', { token, params: { id }, body: { customerId: 99999 } });
    expect(customer.status).toBe(404);
    expect(customer.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: 99999 });
    const legacy = refs.complaintType('Other (legacy)');
    const type = await t.call('updateComplaint', { token, params: { id }, body: { complaintTypeId: legacy } });
    expect(type.status).toBe(404);
    expect(type.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'complaintType', id: legacy });
  });

  it('answers validation errors as a field map, including fields it does not accept', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const res = await t.call('updateComplaint', {
      token: await t.token('agent'),
      params: { id },
      payload: { timeLost: 1.5, transportId: 3, status: 'RESOLVED' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({
      timeLost: 'must be integer,null',
      transportId: 'is not an accepted field',
      status: 'is not an accepted field',
    });
    const empty = await t.call('updateComplaint', { token: await t.token('agent'), params: { id }, body: {} });
    expect(empty.status).toBe(400);
    expect(typeof empty.body.errors).toBe('object');
    expect(Array.isArray(empty.body.errors)).toBe(false);
  });

  it('lets only one of a concurrent edit and status change through when the change comes first', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const [edit, move] = await Promise.all([
      t.call('updateComplaint', { token: await t.token('agent'), params: { id }, body: { location: 'Concurrent edit' } }),
      t.call('changeComplaintStatus', { token: await t.token('supervisor'), params: { id }, body: { status: 'IN_PROGRESS' } }),
    ]);
    expect(move.status).toBe(200);
    // either the edit landed while PENDING, or it was refused because the status had moved on
    expect([200, 409]).toContain(edit.status);
    const row = await t.db.selectFrom('complaints').select(['status', 'location']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('IN_PROGRESS');
    expect(row.location).toBe(edit.status === 200 ? 'Concurrent edit' : null);
  });
});

describe('DELETE /trade/complaints/{id} (deleteComplaint)', () => {
  it('deletes a PENDING complaint with its history and attachments; the transport may get a new complaint', async () => {
    const token = await t.token('agent');
    const upload = await t.call('uploadComplaintAttachments', { token, ...(await multipart({}, [{ name: 'p.png', bytes: PNG }])) });
    const { id, transport } = await fileComplaint(t, refs, 'agent', { attachmentIds: [upload.body.result.uploaded[0]!.id] });
    const res = await t.call('deleteComplaint', { token, params: { id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, result: null });
    expect(await countRows(t, 'complaints', { column: 'id', value: id })).toBe(0);
    expect(await countRows(t, 'complaint_status_history', { column: 'complaint_id', value: id })).toBe(0);
    expect(await countRows(t, 'complaint_attachments', { column: 'complaint_id', value: id })).toBe(0);

    const again = await t.call('createComplaint', { token, body: { transportId: transport.id, label: 'Filed again' } });
    expect(again.status).toBe(201);
  });

  it('refuses a complaint that left PENDING with 409 NOT_EDITABLE', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    await moveTo(t, id, ['UNDER_REVIEW']);
    const res = await t.call('deleteComplaint', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'complaint', id, status: 'UNDER_REVIEW' });
    expect(await countRows(t, 'complaints', { column: 'id', value: id })).toBe(1);
  });

  it('answers 404 for an unknown complaint and for the complaint of another agent', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const other = await t.call('deleteComplaint', { token: await t.token('agent2'), params: { id } });
    expect(other.status).toBe(404);
    expect(other.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    expect(await countRows(t, 'complaints', { column: 'id', value: id })).toBe(1);
    expect((await t.call('deleteComplaint', { token: await t.token('agent'), params: { id: 99999 } })).status).toBe(404);
  });

  it('deletes once out of parallel deletes', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const token = await t.token('agent');
    const results = await Promise.all(Array.from({ length: 4 }, () => t.call('deleteComplaint', { token, params: { id } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 404)).toHaveLength(3);
  });
});
