import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { applyActions, createTransport, loadRefs, type Refs } from './fixtures.js';

let t: TestApp;
let refs: Refs;
beforeAll(async () => {
  t = await createTestApp();
  refs = await loadRefs(t);
});
afterAll(async () => t?.close());

const MACHINE: [from: string, action: string, to: string, allowedAfter: string[]][] = [
  ['PENDING', 'VALIDATE', 'VALIDATED', ['START']],
  ['PENDING', 'REJECT', 'CANCELLED', ['REACTIVATE']],
  ['VALIDATED', 'START', 'IN_PROGRESS', ['FINISH', 'REPORT_PROBLEM']],
  ['IN_PROGRESS', 'FINISH', 'COMPLETED', ['ARCHIVE']],
  ['IN_PROGRESS', 'REPORT_PROBLEM', 'ON_HOLD', ['RESUME', 'CANCEL']],
  ['COMPLETED', 'ARCHIVE', 'ARCHIVED', []],
  ['CANCELLED', 'REACTIVATE', 'PENDING', ['VALIDATE', 'REJECT']],
  ['ON_HOLD', 'RESUME', 'IN_PROGRESS', ['FINISH', 'REPORT_PROBLEM']],
  ['ON_HOLD', 'CANCEL', 'CANCELLED', ['REACTIVATE']],
];
/** Actions that bring a new (PENDING) transport to each status. */
const PATH_TO: Record<string, string[]> = {
  PENDING: [],
  VALIDATED: ['VALIDATE'],
  IN_PROGRESS: ['VALIDATE', 'START'],
  COMPLETED: ['VALIDATE', 'START', 'FINISH'],
  CANCELLED: ['REJECT'],
  ON_HOLD: ['VALIDATE', 'START', 'REPORT_PROBLEM'],
  ARCHIVED: ['VALIDATE', 'START', 'FINISH', 'ARCHIVE'],
};
const ALL_ACTIONS = ['VALIDATE', 'REJECT', 'START', 'FINISH', 'REPORT_PROBLEM', 'ARCHIVE', 'REACTIVATE', 'RESUME', 'CANCEL'];

describe('POST /admin/transports/{id}/actions (applyTransportAction)', () => {
  it.each(MACHINE)('in %s, %s moves the transport to %s and records it in the history', async (from, action, to, allowedAfter) => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, PATH_TO[from]!);
    const res = await t.call('applyTransportAction', {
      token: await t.token('manager'),
      params: { id: created.id },
      payload: { action, comment: `${action} by the team manager` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({ id: created.id, status: to, allowedActions: allowedAfter });
    const last = await t.db
      .selectFrom('transport_status_history')
      .selectAll()
      .where('transport_id', '=', created.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(last).toMatchObject({ from_status: from, to_status: to, action, comment: `${action} by the team manager`, created_by: refs.user('manager') });
  });

  it.each(Object.keys(PATH_TO))('in %s, refuses every action not offered with 409 INVALID_STATUS_TRANSITION', async (status) => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, PATH_TO[status]!);
    const allowed = MACHINE.filter(([from]) => from === status).map(([, action]) => action);
    const token = await t.token('supervisor');
    for (const action of ALL_ACTIONS.filter((a) => !allowed.includes(a))) {
      const res = await t.call('applyTransportAction', { token, params: { id: created.id }, payload: { action } });
      expect(res.status, action).toBe(409);
      expect(res.body.errors).toEqual({ code: 'INVALID_STATUS_TRANSITION', currentStatus: status, requested: action, allowed });
    }
    const row = await t.db.selectFrom('transports').select('status').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.status).toBe(status);
  });

  it('applies exactly one of two parallel VALIDATE on a PENDING transport: one 200, one 409, one history entry', async () => {
    const created = await createTransport(t, refs, 'agent');
    const [manager, supervisor] = [await t.token('manager'), await t.token('supervisor')];
    const results = await Promise.all([
      t.call('applyTransportAction', { token: manager, params: { id: created.id }, body: { action: 'VALIDATE' } }),
      t.call('applyTransportAction', { token: supervisor, params: { id: created.id }, body: { action: 'VALIDATE' } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const refused = results.find((r) => r.status === 409)!;
    expect(refused.body.errors).toEqual({ code: 'INVALID_STATUS_TRANSITION', currentStatus: 'VALIDATED', requested: 'VALIDATE', allowed: ['START'] });
    const history = await t.db
      .selectFrom('transport_status_history')
      .select('action')
      .where('transport_id', '=', created.id)
      .where('action', '=', 'VALIDATE')
      .execute();
    expect(history).toHaveLength(1);
  });

  it("answers 404 to a team manager for another team's transport and 403 to an agent", async () => {
    const created = await createTransport(t, refs, 'agent2');
    const manager = await t.call('applyTransportAction', { token: await t.token('manager'), params: { id: created.id }, body: { action: 'VALIDATE' } });
    expect(manager.status).toBe(404);
    expect(manager.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: created.id });
    const agent = await t.call('applyTransportAction', { token: await t.token('agent2'), params: { id: created.id }, body: { action: 'VALIDATE' } });
    expect(agent.status).toBe(403);
    const row = await t.db.selectFrom('transports').select('status').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('PENDING');
  });

  it('answers 400 for an unknown action', async () => {
    const created = await createTransport(t, refs, 'agent');
    const res = await t.call('applyTransportAction', { token: await t.token('supervisor'), params: { id: created.id }, payload: { action: 'TELEPORT' } });
    expect(res.status).toBe(400);
  });
});

describe('GET /admin/transports/{id}/status-history (getTransportStatusHistory)', () => {
  it('lists the creation entry then every action, oldest first, with the author names', async () => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, ['VALIDATE', 'START']);
    const res = await t.call('getTransportStatusHistory', { token: await t.token('manager'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.result.map((h: { action: string; fromStatus: string | null; toStatus: string }) => [h.action, h.fromStatus, h.toStatus])).toEqual([
      ['CREATE', null, 'PENDING'],
      ['VALIDATE', 'PENDING', 'VALIDATED'],
      ['START', 'VALIDATED', 'IN_PROGRESS'],
    ]);
    expect(res.body.result[0]).toMatchObject({ transportId: created.id, comment: null, createdBy: { id: refs.user('agent'), name: 'Sarah Benali' } });
    expect(res.body.result[1]!.createdBy).toEqual({ id: refs.user('supervisor'), name: 'Moussa Diop' });
  });

  it("answers 404 to a team manager for another team's transport, 404 for an absent id, 403 to an agent", async () => {
    const created = await createTransport(t, refs, 'agent2');
    const manager = await t.call('getTransportStatusHistory', { token: await t.token('manager'), params: { id: created.id } });
    expect(manager.status).toBe(404);
    const absent = await t.call('getTransportStatusHistory', { token: await t.token('admin'), params: { id: 999999 } });
    expect(absent.status).toBe(404);
    expect(absent.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: 999999 });
    const agent = await t.call('getTransportStatusHistory', { token: await t.token('agent2'), params: { id: created.id } });
    expect(agent.status).toBe(403);
  });
});
