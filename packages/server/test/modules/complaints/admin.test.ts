import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsIn } from '../../support/fixtures.js';
import { expectNotFound } from '../../support/expect.js';
import { countRows, fileComplaint, loadRefs, moveTo, multipart, PNG, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('GET /admin/complaints (listAdminComplaints)', () => {
  it('lists with creator and assignee, filtered by assignee, creator and a search in label, description and location', async () => {
    const a = await fileComplaint(t, refs, 'agent', { label: 'Admin list alpha', description: 'Broken seal on container Kappa.' });
    const b = await fileComplaint(t, refs, 'agent2', { label: 'Admin list beta', location: 'Kappa terminal' });
    await t.call('assignComplaint', { token: await t.token('supervisor'), params: { id: b.id }, body: { userId: refs.user('manager') } });
    const token = await t.token('supervisor');

    const search = await t.call('listAdminComplaints', { token, query: { search: 'kappa', sortOrder: 'ASC' } });
    expect(search.status).toBe(200);
    expect(idsIn(search.body)).toEqual([a.id, b.id]);
    expect(search.body.result.data[0]).toMatchObject({ createdBy: { id: refs.user('agent'), username: 'agent' }, assignedTo: null });
    expect(search.body.result.data[1]).toMatchObject({
      createdBy: { username: 'agent2' },
      assignedTo: { id: refs.user('manager'), username: 'manager' },
    });
    expect(search.body.result.meta).toEqual({
      total: 2,
      current_page: 1,
      total_pages: 1,
      limit: 10,
      next_page: null,
      previous_page: null,
      total_is_exact: true,
      next_cursor: null,
    });

    expect(
      idsIn((await t.call('listAdminComplaints', { token, query: { search: 'kappa', assignedTo: refs.user('manager') } })).body),
    ).toEqual([b.id]);
    expect(idsIn((await t.call('listAdminComplaints', { token, query: { search: 'kappa', createdBy: refs.user('agent') } })).body)).toEqual(
      [a.id],
    );
    expect(idsIn((await t.call('listAdminComplaints', { token, query: { label: 'beta' } })).body)).toEqual([b.id]);
  });

  it('limits a team manager to the complaints of the subtree', async () => {
    const alpha = await fileComplaint(t, refs, 'agent');
    const beta = await fileComplaint(t, refs, 'agent2');
    const res = await t.call('listAdminComplaints', { token: await t.token('manager'), query: { limit: 100 } });
    expect(idsIn(res.body)).toContain(alpha.id);
    expect(idsIn(res.body)).not.toContain(beta.id);
  });

  it('refuses agents with 403', async () => {
    const res = await t.call('listAdminComplaints', { token: await t.token('agent') });
    expect(res.status).toBe(403);
    expect(res.body.errors.code).toBe('FORBIDDEN');
  });
});

describe('GET /admin/complaints/{id} (getAdminComplaintById)', () => {
  it('returns the detail with creator, assignee, resolvedAt and the allowed next statuses', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', {}, refs.customer('Pierre'));
    const res = await t.call('getAdminComplaintById', { token: await t.token('manager'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      status: 'PENDING',
      createdBy: { id: refs.user('agent'), username: 'agent' },
      assignedTo: null,
      resolvedAt: null,
      allowedStatuses: ['IN_PROGRESS', 'UNDER_REVIEW', 'ESCALATED', 'REJECTED'],
      customer: { firstName: 'Pierre', email: 'pierre.lambert@mail.example' },
    });
  });

  it('answers 404 outside the team manager subtree and for an unknown id', async () => {
    const { id } = await fileComplaint(t, refs, 'agent2');
    const res = await t.call('getAdminComplaintById', { token: await t.token('manager'), params: { id } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    expect((await t.call('getAdminComplaintById', { token: await t.token('admin'), params: { id: 99999 } })).status).toBe(404);
  });
});

describe('PATCH /admin/complaints/{id} (updateAdminComplaint)', () => {
  it('corrects a complaint being handled; null clears a field', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', { amountPaid: 100, location: 'Dock 2' });
    await moveTo(t, id, ['IN_PROGRESS']);
    const res = await t.call('updateAdminComplaint', {
      token: await t.token('supervisor'),
      params: { id },
      body: { amountPaid: 1350, timeLost: 320, location: null, complaintTypeId: refs.complaintType('Delivery delay') },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      status: 'IN_PROGRESS',
      amountPaid: 1350,
      timeLost: 320,
      location: null,
      complaintType: { id: refs.complaintType('Delivery delay'), name: 'Delivery delay' },
    });
  });

  it('refuses a CLOSED complaint with 409 NOT_EDITABLE', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    await moveTo(t, id, ['REJECTED', 'CLOSED']);
    const res = await t.call('updateAdminComplaint', { token: await t.token('admin'), params: { id }, body: { label: 'Too late' } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'complaint', id, status: 'CLOSED' });
  });

  it('answers 404 for an unknown complaint, customer or inactive type', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const token = await t.token('supervisor');
    expect((await t.call('updateAdminComplaint', { token, params: { id: 99999 }, body: { label: 'Nope' } })).body.errors).toEqual({
      code: 'COMPLAINT_NOT_FOUND',
      complaintId: 99999,
    });
    expect((await t.call('updateAdminComplaint', { token, params: { id }, body: { customerId: 99999 } })).body.errors).toEqual({
      code: 'CUSTOMER_NOT_FOUND',
      customerId: 99999,
    });
    const legacy = refs.complaintType('Other (legacy)');
    expect((await t.call('updateAdminComplaint', { token, params: { id }, body: { complaintTypeId: legacy } })).body.errors).toEqual({
      code: 'RESOURCE_NOT_FOUND',
      resource: 'complaintType',
      id: legacy,
    });
  });

  it('is for supervisors and above: a team manager gets 403, and validation errors are a list', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    expect(
      (await t.call('updateAdminComplaint', { token: await t.token('manager'), params: { id }, body: { label: 'Manager' } })).status,
    ).toBe(403);
    const invalid = await t.call('updateAdminComplaint', { token: await t.token('supervisor'), params: { id }, body: { label: 'ab' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual(['body/label must NOT have fewer than 3 characters']);
  });
});

describe('DELETE /admin/complaints/{id} (deleteAdminComplaint)', () => {
  it('deletes a closed complaint with its history, attachments and notifications', async () => {
    const token = await t.token('agent');
    const upload = await t.call('uploadComplaintAttachments', { token, ...(await multipart({}, [{ name: 'p.png', bytes: PNG }])) });
    const { id } = await fileComplaint(t, refs, 'agent', { attachmentIds: [upload.body.result.uploaded[0]!.id] }, refs.customer('Fatou'));
    await moveTo(t, id, ['IN_PROGRESS', 'RESOLVED', 'CLOSED']);
    expect(await countRows(t, 'complaint_notifications', { column: 'complaint_id', value: id })).toBe(1);

    const res = await t.call('deleteAdminComplaint', { token: await t.token('admin'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    for (const table of ['complaints', 'complaint_status_history', 'complaint_notifications', 'complaint_attachments'] as const) {
      expect(await countRows(t, table, { column: table === 'complaints' ? 'id' : 'complaint_id', value: id })).toBe(0);
    }
  });

  it('deletes a rejected complaint, and refuses one still open or resolved but not closed with 409 NOT_EDITABLE', async () => {
    const admin = await t.token('admin');
    const rejected = await fileComplaint(t, refs, 'agent');
    await moveTo(t, rejected.id, ['REJECTED']);
    expect((await t.call('deleteAdminComplaint', { token: admin, params: { id: rejected.id } })).body).toMatchObject({
      success: true,
      message: 'Complaint deleted',
    });

    for (const path of [[], ['IN_PROGRESS'], ['IN_PROGRESS', 'RESOLVED']]) {
      const { id } = await fileComplaint(t, refs, 'agent');
      await moveTo(t, id, path);
      const res = await t.call('deleteAdminComplaint', { token: admin, params: { id } });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        message: 'Only rejected or closed complaints can be deleted',
        errors: { code: 'NOT_EDITABLE', resource: 'complaint', id, status: path.at(-1) ?? 'PENDING' },
      });
      expect(await countRows(t, 'complaints', { column: 'id', value: id })).toBe(1);
    }
  });

  it('answers 404 for an unknown id and 403 for a supervisor', async () => {
    expect((await t.call('deleteAdminComplaint', { token: await t.token('admin'), params: { id: 99999 } })).body.errors).toEqual({
      code: 'COMPLAINT_NOT_FOUND',
      complaintId: 99999,
    });
    const { id } = await fileComplaint(t, refs, 'agent');
    expect((await t.call('deleteAdminComplaint', { token: await t.token('supervisor'), params: { id } })).status).toBe(403);
  });
});

describe('POST /admin/complaints/{id}/assign (assignComplaint)', () => {
  it('assigns to an agent and unassigns with null, without touching the status or the history', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const token = await t.token('manager');
    const res = await t.call('assignComplaint', { token, params: { id }, body: { userId: refs.user('agent') } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: 'Complaint assigned to agent',
      result: { status: 'PENDING', assignedTo: { id: refs.user('agent'), username: 'agent' } },
    });
    const cleared = await t.call('assignComplaint', { token, params: { id }, body: { userId: null } });
    expect(cleared.body).toMatchObject({ message: 'Complaint unassigned', result: { assignedTo: null } });
    expect(await countRows(t, 'complaint_status_history', { column: 'complaint_id', value: id })).toBe(1);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an admin, an unknown user or a user outside the team manager subtree', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const supervisor = await t.token('supervisor');
    const admin = await t.call('assignComplaint', { token: supervisor, params: { id }, body: { userId: refs.user('admin') } });
    expect(admin.status).toBe(404);
    expect(admin.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: refs.user('admin') });
    expect((await t.call('assignComplaint', { token: supervisor, params: { id }, body: { userId: 99999 } })).status).toBe(404);
    const outside = await t.call('assignComplaint', {
      token: await t.token('manager'),
      params: { id },
      body: { userId: refs.user('agent2') },
    });
    expect(outside.status).toBe(404);
    expect(outside.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: refs.user('agent2') });
    // the supervisor may assign across teams
    expect((await t.call('assignComplaint', { token: supervisor, params: { id }, body: { userId: refs.user('agent2') } })).status).toBe(
      200,
    );
  });

  it('answers 404 for an inactive user', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    await t.db.updateTable('users').set({ is_active: false }).where('username', '=', 'agent2').execute();
    try {
      const res = await t.call('assignComplaint', {
        token: await t.token('supervisor'),
        params: { id },
        body: { userId: refs.user('agent2') },
      });
      expectNotFound(res, 'user', refs.user('agent2'));
      const read = await t.call('getAdminComplaintById', { token: await t.token('supervisor'), params: { id } });
      expect(read.body.result.assignedTo).toBeNull();
    } finally {
      await t.db.updateTable('users').set({ is_active: true }).where('username', '=', 'agent2').execute();
    }
  });

  it('refuses a CLOSED complaint with 409 and a complaint outside the subtree with 404', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    await moveTo(t, id, ['REJECTED', 'CLOSED']);
    const closed = await t.call('assignComplaint', {
      token: await t.token('supervisor'),
      params: { id },
      body: { userId: refs.user('agent') },
    });
    expect(closed.status).toBe(409);
    expect(closed.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'complaint', id, status: 'CLOSED' });
    const beta = await fileComplaint(t, refs, 'agent2');
    const hidden = await t.call('assignComplaint', {
      token: await t.token('manager'),
      params: { id: beta.id },
      body: { userId: refs.user('agent') },
    });
    expect(hidden.status).toBe(404);
    expect(hidden.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: beta.id });
  });
});
