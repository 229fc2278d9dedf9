import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { countRows, fileComplaint, loadRefs, moveTo, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const change = async (id: number, status: string, comment?: string, user: 'manager' | 'supervisor' | 'admin' = 'supervisor') =>
  t.call('changeComplaintStatus', { token: await t.token(user), params: { id }, payload: { status, ...(comment ? { comment } : {}) } });

describe('PATCH /admin/complaints/{id}/status (changeComplaintStatus)', () => {
  it('follows PENDING → IN_PROGRESS → RESOLVED with history entries and an e-mail to the customer', async () => {
    const fatou = refs.customer('Fatou');
    const { id } = await fileComplaint(t, refs, 'agent', { label: 'Late delivery to Dakar' }, fatou);

    const taken = await change(id, 'IN_PROGRESS', 'Carrier contacted.', 'manager');
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({
      message: 'Complaint status changed to IN_PROGRESS',
      result: { id, status: 'IN_PROGRESS', resolvedAt: null, allowedStatuses: ['RESOLVED', 'UNDER_REVIEW', 'ESCALATED', 'REJECTED'] },
    });

    const resolved = await change(id, 'RESOLVED', 'Refund of 120 EUR granted.', 'manager');
    expect(resolved.status).toBe(200);
    expect(resolved.body.result).toMatchObject({ status: 'RESOLVED', allowedStatuses: ['CLOSED', 'REOPENED'] });
    expect(resolved.body.result.resolvedAt).not.toBeNull();

    const history = await t.call('getAdminComplaintStatusHistory', { token: await t.token('manager'), params: { id } });
    expect(
      history.body.result.map((h: { status: string; comment: string | null; createdBy: { id: number; type: string } }) => [
        h.status,
        h.comment,
        h.createdBy.id,
        h.createdBy.type,
      ]),
    ).toEqual([
      ['PENDING', null, refs.user('agent'), 'AGENT'],
      ['IN_PROGRESS', 'Carrier contacted.', refs.user('manager'), 'AGENT'],
      ['RESOLVED', 'Refund of 120 EUR granted.', refs.user('manager'), 'AGENT'],
    ]);

    const notices = await t.call('listComplaintNotifications', { token: await t.token('manager'), params: { id } });
    expect(notices.status).toBe(200);
    expect(notices.body.result).toEqual([
      expect.objectContaining({
        complaintId: id,
        customerId: fatou,
        channel: 'EMAIL',
        recipient: 'fatou.ndiaye@mail.example',
        status: 'QUEUED',
        subject: 'Your complaint has been resolved: Late delivery to Dakar',
      }),
    ]);
    expect(notices.body.result[0]!.body).toContain('Refund of 120 EUR granted.');
  });

  it('notifies by SMS a customer without an e-mail, and resolves without notice a complaint without customer', async () => {
    const youssef = refs.customer('Youssef');
    const sms = await fileComplaint(t, refs, 'agent', {}, youssef);
    await moveTo(t, sms.id, ['IN_PROGRESS', 'RESOLVED']);
    const rows = await t.db.selectFrom('complaint_notifications').selectAll().where('complaint_id', '=', sms.id).execute();
    expect(rows).toEqual([
      expect.objectContaining({ channel: 'SMS', recipient: '+212 612 345 678', customer_id: youssef, status: 'QUEUED' }),
    ]);

    const none = await fileComplaint(t, refs, 'agent');
    await moveTo(t, none.id, ['ESCALATED', 'RESOLVED']);
    expect(await countRows(t, 'complaint_notifications', { column: 'complaint_id', value: none.id })).toBe(0);
    const notices = await t.call('listComplaintNotifications', { token: await t.token('supervisor'), params: { id: none.id } });
    expect(notices.body.result).toEqual([]);
  });

  it('refuses an illegal move with 409 INVALID_STATUS_TRANSITION and the allowed statuses, changing nothing', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const res = await change(id, 'RESOLVED');
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({
      code: 'INVALID_STATUS_TRANSITION',
      currentStatus: 'PENDING',
      requested: 'RESOLVED',
      allowed: ['IN_PROGRESS', 'UNDER_REVIEW', 'ESCALATED', 'REJECTED'],
    });
    const same = await change(id, 'PENDING');
    expect(same.status).toBe(409);
    expect(await countRows(t, 'complaint_status_history', { column: 'complaint_id', value: id })).toBe(1);
    const row = await t.db.selectFrom('complaints').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('PENDING');
  });

  it('keeps CLOSED terminal, clears resolvedAt on REOPENED and keeps it on CLOSED', async () => {
    const reopened = await fileComplaint(t, refs, 'agent');
    await moveTo(t, reopened.id, ['IN_PROGRESS', 'RESOLVED']);
    const res = await change(reopened.id, 'REOPENED', 'The customer found more damage.');
    expect(res.body.result).toMatchObject({
      status: 'REOPENED',
      resolvedAt: null,
      allowedStatuses: ['IN_PROGRESS', 'ESCALATED', 'REJECTED'],
    });

    const closed = await fileComplaint(t, refs, 'agent');
    await moveTo(t, closed.id, ['UNDER_REVIEW', 'RESOLVED']);
    const close = await change(closed.id, 'CLOSED');
    expect(close.body.result.status).toBe('CLOSED');
    expect(close.body.result.resolvedAt).not.toBeNull();
    expect(close.body.result.allowedStatuses).toEqual([]);
    const after = await change(closed.id, 'REOPENED');
    expect(after.status).toBe(409);
    expect(after.body.errors).toMatchObject({ currentStatus: 'CLOSED', requested: 'REOPENED', allowed: [] });
  });

  it('applies only one of concurrent takes in charge of the same complaint', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const users = ['supervisor', 'admin', 'manager', 'supervisor', 'admin'] as const;
    const results = await Promise.all(users.map((user, i) => change(id, 'IN_PROGRESS', `take ${i}`, user)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(4);
    for (const r of refused)
      expect(r.body.errors).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', currentStatus: 'IN_PROGRESS', requested: 'IN_PROGRESS' });
    expect(await countRows(t, 'complaint_status_history', { column: 'complaint_id', value: id })).toBe(2);
  });

  it('hides the complaints of another team from a team manager and of another agent from an agent (404)', async () => {
    const { id } = await fileComplaint(t, refs, 'agent2');
    const res = await change(id, 'IN_PROGRESS', undefined, 'manager');
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    const agent = await t.call('changeComplaintStatus', { token: await t.token('agent'), params: { id }, body: { status: 'IN_PROGRESS' } });
    expect(agent.status).toBe(404);
    expect(agent.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    expect((await change(99999, 'IN_PROGRESS')).status).toBe(404);
  });

  it('lets an agent take their own complaint in charge and mark it processed, with history entries naming them', async () => {
    const fatou = refs.customer('Fatou');
    const { id } = await fileComplaint(t, refs, 'agent', { label: 'Pallets left in the rain' }, fatou);
    const token = await t.token('agent');
    const taken = await t.call('changeComplaintStatus', {
      token,
      params: { id },
      body: { status: 'IN_PROGRESS', comment: 'Calling the carrier.' },
    });
    expect(taken.status).toBe(200);
    expect(taken.body.result).toMatchObject({ id, status: 'IN_PROGRESS', allowedStatuses: ['RESOLVED'] });
    const done = await t.call('changeComplaintStatus', {
      token,
      params: { id },
      body: { status: 'RESOLVED', comment: 'Carrier pays the damage.' },
    });
    expect(done.body).toMatchObject({
      message: 'Complaint status changed to RESOLVED',
      result: { status: 'RESOLVED', allowedStatuses: [] },
    });

    const history = await t.call('getComplaintStatusHistory', { token, params: { id } });
    expect(
      history.body.result.map((h: { status: string; createdBy: { id: number; name: string; type: string } }) => [h.status, h.createdBy]),
    ).toEqual([
      ['PENDING', { id: refs.user('agent'), name: expect.any(String), type: 'AGENT' }],
      ['IN_PROGRESS', { id: refs.user('agent'), name: expect.any(String), type: 'AGENT' }],
      ['RESOLVED', { id: refs.user('agent'), name: expect.any(String), type: 'AGENT' }],
    ]);
    expect(await countRows(t, 'complaint_notifications', { column: 'complaint_id', value: id })).toBe(1);
  });

  it('refuses an agent the staff moves with 403 FORBIDDEN naming the roles, and offers none of them', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const token = await t.token('agent');
    const res = await t.call('changeComplaintStatus', { token, params: { id }, body: { status: 'ESCALATED' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      message: 'Your role may not move a complaint from PENDING to ESCALATED',
      errors: { code: 'FORBIDDEN', requiredRoles: ['team_manager', 'supervisor', 'admin', 'super_admin'] },
    });
    const wrong = await t.call('changeComplaintStatus', { token, params: { id }, body: { status: 'RESOLVED' } });
    expect(wrong.status).toBe(409);
    expect(wrong.body.errors).toEqual({
      code: 'INVALID_STATUS_TRANSITION',
      currentStatus: 'PENDING',
      requested: 'RESOLVED',
      allowed: ['IN_PROGRESS'],
    });
    expect(await countRows(t, 'complaint_status_history', { column: 'complaint_id', value: id })).toBe(1);
  });

  it('lets an agent work a complaint of another agent that is assigned to them', async () => {
    const { id } = await fileComplaint(t, refs, 'agent2');
    const assigned = await t.call('assignComplaint', {
      token: await t.token('supervisor'),
      params: { id },
      body: { userId: refs.user('agent') },
    });
    expect(assigned.status).toBe(200);
    const res = await t.call('changeComplaintStatus', { token: await t.token('agent'), params: { id }, body: { status: 'IN_PROGRESS' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id, status: 'IN_PROGRESS', assignedTo: { id: refs.user('agent') } });
  });

  it('answers 400 for an unknown status', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const res = await change(id, 'DONE');
    expect(res.status).toBe(400);
    expect((res.body.errors as unknown as string[])[0]).toMatch(/^body\/status must be one of/);
  });
});

describe('PATCH /trade/complaints/{id}/status (updateComplaintStatus) and the next moves on the user side', () => {
  const move = async (id: number, status: string, user: 'agent' | 'agent2' | 'manager' | 'supervisor' = 'agent', comment?: string) =>
    t.call('updateComplaintStatus', { token: await t.token(user), params: { id }, payload: { status, ...(comment ? { comment } : {}) } });

  it('gives an agent their two moves without an administration path, showing the next one on the complaint', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', { label: 'Seal broken at unloading' }, refs.customer('Fatou'));
    const token = await t.token('agent');
    const before = await t.call('getComplaintById', { token, params: { id } });
    expect(before.body.result).toMatchObject({ id, status: 'PENDING', allowedStatuses: ['IN_PROGRESS'] });

    const taken = await move(id, 'IN_PROGRESS', 'agent', 'On it.');
    expect(taken.body).toMatchObject({
      message: 'Complaint status changed to IN_PROGRESS',
      result: { id, status: 'IN_PROGRESS', allowedStatuses: ['RESOLVED'] },
    });
    expect((await t.call('getComplaintById', { token, params: { id } })).body.result.allowedStatuses).toEqual(['RESOLVED']);

    const done = await move(id, 'RESOLVED', 'agent', 'Carrier refunds the seal.');
    expect(done.body.result).toMatchObject({ status: 'RESOLVED', allowedStatuses: [] });
    // The same effects as the administration path: the history entries and the customer's notice.
    const history = await t.db
      .selectFrom('complaint_status_history')
      .select(['status', 'comment'])
      .where('complaint_id', '=', id)
      .orderBy('id')
      .execute();
    expect(history.map((h) => h.status)).toEqual(['PENDING', 'IN_PROGRESS', 'RESOLVED']);
    expect(history.slice(1).map((h) => h.comment)).toEqual(['On it.', 'Carrier refunds the seal.']);
    expect(await countRows(t, 'complaint_notifications', { column: 'complaint_id', value: id })).toBe(1);
  });

  it('keeps every other move with the staff: 403 naming the roles to an agent, nothing written; staff see their own next moves', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const refused = await move(id, 'ESCALATED');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      message: 'Your role may not move a complaint from PENDING to ESCALATED',
      errors: { code: 'FORBIDDEN', requiredRoles: ['team_manager', 'supervisor', 'admin', 'super_admin'] },
    });
    const invalid = await move(id, 'RESOLVED');
    expect(invalid.body.errors).toEqual({
      code: 'INVALID_STATUS_TRANSITION',
      currentStatus: 'PENDING',
      requested: 'RESOLVED',
      allowed: ['IN_PROGRESS'],
    });
    expect(await countRows(t, 'complaint_status_history', { column: 'complaint_id', value: id })).toBe(1);

    const staff = await t.call('getComplaintById', { token: await t.token('manager'), params: { id } });
    expect(staff.body.result.allowedStatuses).toEqual(['IN_PROGRESS', 'UNDER_REVIEW', 'ESCALATED', 'REJECTED']);
    const escalated = await move(id, 'ESCALATED', 'manager');
    expect(escalated.body.result).toMatchObject({
      status: 'ESCALATED',
      allowedStatuses: ['IN_PROGRESS', 'UNDER_REVIEW', 'RESOLVED', 'REJECTED'],
    });
    const agentView = await t.call('getComplaintById', { token: await t.token('agent'), params: { id } });
    expect(agentView.body.result).toMatchObject({ status: 'ESCALATED', allowedStatuses: [] });
  });

  it("answers 404 for another agent's complaint, exactly as for an unknown one", async () => {
    const { id } = await fileComplaint(t, refs, 'agent2');
    const res = await move(id, 'IN_PROGRESS');
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    const row = await t.db.selectFrom('complaints').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('PENDING');
  });
});

describe('GET /admin/complaints/{id}/status-history (getAdminComplaintStatusHistory)', () => {
  it('answers 404 for a complaint outside the team manager subtree', async () => {
    const { id } = await fileComplaint(t, refs, 'agent2');
    const res = await t.call('getAdminComplaintStatusHistory', { token: await t.token('manager'), params: { id } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    const supervisor = await t.call('getAdminComplaintStatusHistory', { token: await t.token('supervisor'), params: { id } });
    expect(supervisor.body.result).toEqual([
      expect.objectContaining({ status: 'PENDING', createdBy: { id: refs.user('agent2'), name: 'Karim El Idrissi', type: 'AGENT' } }),
    ]);
  });
});

describe('GET /admin/complaints/{id}/notifications (listComplaintNotifications)', () => {
  it('answers 404 for an unknown complaint and 403 for an agent', async () => {
    const res = await t.call('listComplaintNotifications', { token: await t.token('supervisor'), params: { id: 99999 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: 99999 });
    expect((await t.call('listComplaintNotifications', { token: await t.token('agent'), params: { id: 1 } })).status).toBe(403);
  });
});
