import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid } from '../../support/expect.js';
import { applyActions, createTransport, loadRefs, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

/** [state, action, status after, validation level after, actions then open to a supervisor]; actions by the supervisor. */
const MACHINE: [from: string, action: string, to: string, level: number, allowedAfter: string[]][] = [
  ['PENDING', 'VALIDATE', 'PENDING', 1, ['VALIDATE', 'REJECT']],
  ['PENDING', 'REJECT', 'CANCELLED', 0, ['REACTIVATE']],
  ['LEVEL_1_VALIDATED', 'VALIDATE', 'VALIDATED', 2, ['START']],
  ['LEVEL_1_VALIDATED', 'REJECT', 'PENDING', 0, ['VALIDATE', 'REJECT']],
  ['VALIDATED', 'START', 'IN_PROGRESS', 2, ['FINISH', 'REPORT_PROBLEM']],
  ['IN_PROGRESS', 'FINISH', 'COMPLETED', 2, ['ARCHIVE']],
  ['IN_PROGRESS', 'REPORT_PROBLEM', 'ON_HOLD', 2, ['RESUME', 'CANCEL']],
  ['COMPLETED', 'ARCHIVE', 'ARCHIVED', 2, []],
  ['CANCELLED', 'REACTIVATE', 'PENDING', 0, ['VALIDATE', 'REJECT']],
  ['ON_HOLD', 'RESUME', 'IN_PROGRESS', 2, ['FINISH', 'REPORT_PROBLEM']],
  ['ON_HOLD', 'CANCEL', 'CANCELLED', 0, ['REACTIVATE']],
];
/** Actions that bring a new (PENDING) transport to each state (see applyActions). */
const PATH_TO: Record<string, string[]> = {
  PENDING: [],
  LEVEL_1_VALIDATED: ['VALIDATE_1'],
  VALIDATED: ['VALIDATE'],
  IN_PROGRESS: ['VALIDATE', 'START'],
  COMPLETED: ['VALIDATE', 'START', 'FINISH'],
  CANCELLED: ['REJECT'],
  ON_HOLD: ['VALIDATE', 'START', 'REPORT_PROBLEM'],
  ARCHIVED: ['VALIDATE', 'START', 'FINISH', 'ARCHIVE'],
};
const ALL_ACTIONS = ['VALIDATE', 'REJECT', 'START', 'FINISH', 'REPORT_PROBLEM', 'ARCHIVE', 'REACTIVATE', 'RESUME', 'CANCEL'];
const statusOf = (state: string) => (state === 'LEVEL_1_VALIDATED' ? 'PENDING' : state);
const LEVEL_OF: Record<string, number | null> = {
  'PENDING VALIDATE': 1,
  'PENDING REJECT': 1,
  'LEVEL_1_VALIDATED VALIDATE': 2,
  'LEVEL_1_VALIDATED REJECT': 2,
};

const act = async (user: 'agent' | 'agent2' | 'manager' | 'supervisor' | 'admin', id: number, action: string, comment?: string) =>
  t.call('applyTransportAction', { token: await t.token(user), params: { id }, payload: { action, ...(comment ? { comment } : {}) } });

describe('POST /admin/transports/{id}/actions (applyTransportAction)', () => {
  it.each(MACHINE)(
    'in %s, %s leads to %s at validation level %s and is recorded in the history',
    async (from, action, to, level, allowedAfter) => {
      const created = await createTransport(t, refs, 'agent');
      await applyActions(t, created.id, PATH_TO[from]!);
      const res = await act('supervisor', created.id, action, `${action} by the supervisor`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.result).toMatchObject({ id: created.id, status: to, validationLevel: level, allowedActions: allowedAfter });
      const last = await t.db
        .selectFrom('transport_status_history')
        .selectAll()
        .where('transport_id', '=', created.id)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(last).toMatchObject({
        from_status: statusOf(from),
        to_status: to,
        action,
        comment: `${action} by the supervisor`,
        created_by: refs.user('supervisor'),
        validation_level: LEVEL_OF[`${from} ${action}`] ?? null,
      });
    },
  );

  it.each(Object.keys(PATH_TO))('in %s, refuses every action not offered with 409 INVALID_STATUS_TRANSITION', async (state) => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, PATH_TO[state]!);
    const allowed = MACHINE.filter(([from]) => from === state).map(([, action]) => action);
    for (const action of ALL_ACTIONS.filter((a) => !allowed.includes(a))) {
      const res = await act('supervisor', created.id, action);
      expect(res.status, action).toBe(409);
      expect(res.body.errors).toEqual({ code: 'INVALID_STATUS_TRANSITION', currentStatus: statusOf(state), requested: action, allowed });
    }
    const row = await t.db.selectFrom('transports').select('status').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.status).toBe(statusOf(state));
  });

  it('validates in two levels: the team manager first, then a supervisor; both visible in state and history', async () => {
    const created = await createTransport(t, refs, 'agent');
    const first = await act('manager', created.id, 'VALIDATE', 'Documents checked');
    expect(first.body).toMatchObject({
      message: 'Transport validated at level 1; awaiting the supervisor (level 2)',
      result: { status: 'PENDING', validationLevel: 1, allowedActions: [] },
    });
    // The owner sees the level on the user side too (`validationLevel` is a required field of Transport).
    const owner = await t.call('getTransportById', { token: await t.token('agent'), params: { id: created.id } });
    expect(owner.body.result).toMatchObject({ id: created.id, status: 'PENDING', validationLevel: 1 });
    const second = await act('supervisor', created.id, 'VALIDATE', 'Customer confirmed');
    expect(second.body).toMatchObject({
      message: 'Transport validated',
      result: { status: 'VALIDATED', validationLevel: 2, allowedActions: ['START'] },
    });

    const history = await t.call('getTransportStatusHistory', { token: await t.token('manager'), params: { id: created.id } });
    expect(
      history.body.result.map(
        (h: { action: string; fromStatus: string | null; toStatus: string; validationLevel: number | null; createdBy: { id: number } }) => [
          h.action,
          h.fromStatus,
          h.toStatus,
          h.validationLevel,
          h.createdBy.id,
        ],
      ),
    ).toEqual([
      ['CREATE', null, 'PENDING', null, refs.user('agent')],
      ['VALIDATE', 'PENDING', 'PENDING', 1, refs.user('manager')],
      ['VALIDATE', 'PENDING', 'VALIDATED', 2, refs.user('supervisor')],
    ]);
  });

  it('refuses a team manager the level-2 actions with 403 FORBIDDEN naming the roles', async () => {
    const created = await createTransport(t, refs, 'agent');
    await act('manager', created.id, 'VALIDATE');
    for (const action of ['VALIDATE', 'REJECT']) {
      const res = await act('manager', created.id, action);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        // The contract's words (a status and a level), never the server's internal state name.
        message: `Your role may not apply ${action} to a PENDING transport at validation level 1`,
        errors: { code: 'FORBIDDEN', requiredRoles: ['supervisor', 'admin', 'super_admin'] },
      });
    }
    const row = await t.db
      .selectFrom('transports')
      .select(['status', 'validation_level'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'PENDING', validation_level: 1 });
    const start = await act('supervisor', created.id, 'START');
    expect(start.status).toBe(409);
    expect(start.body).toMatchObject({
      message: 'Action START is not allowed on a PENDING transport at validation level 1',
      errors: { code: 'INVALID_STATUS_TRANSITION', currentStatus: 'PENDING', requested: 'START', allowed: ['VALIDATE', 'REJECT'] },
    });
  });

  it('refuses the level-1 validator the level-2 validation with 409 SELF_ACTION_FORBIDDEN (four eyes)', async () => {
    const created = await createTransport(t, refs, 'agent');
    expect((await act('supervisor', created.id, 'VALIDATE')).body.result.validationLevel).toBe(1);
    const again = await act('supervisor', created.id, 'VALIDATE');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      message: 'The level-2 validation must be given by another user than the level-1 validation',
      errors: { code: 'SELF_ACTION_FORBIDDEN', action: 'VALIDATE' },
    });
    expect((await act('admin', created.id, 'VALIDATE')).body.result).toMatchObject({ status: 'VALIDATED', validationLevel: 2 });
  });

  it('sends a transport rejected at level 2 back to level 1, where the team manager may validate it again', async () => {
    const created = await createTransport(t, refs, 'agent');
    await act('manager', created.id, 'VALIDATE');
    const rejected = await act('supervisor', created.id, 'REJECT', 'Insurance certificate expired');
    expect(rejected.body).toMatchObject({
      message: 'Transport rejected at level 2; back to level-1 validation',
      result: { status: 'PENDING', validationLevel: 0 },
    });
    const again = await act('manager', created.id, 'VALIDATE', 'New certificate uploaded');
    expect(again.body.result).toMatchObject({ status: 'PENDING', validationLevel: 1 });
    const cancelled = await createTransport(t, refs, 'agent');
    const levelOne = await act('manager', cancelled.id, 'REJECT', 'Duplicate order');
    expect(levelOne.body).toMatchObject({
      message: 'Transport rejected',
      result: { status: 'CANCELLED', validationLevel: 0, allowedActions: ['REACTIVATE'] },
    });
  });

  it('applies exactly one of two parallel level-1 VALIDATE by the team manager: one 200, one refusal, one history entry', async () => {
    const created = await createTransport(t, refs, 'agent');
    const results = await Promise.all([act('manager', created.id, 'VALIDATE'), act('manager', created.id, 'VALIDATE')]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    // The loser either saw level 1 already (403: level 2 is not a team manager's) or lost the guarded update (409).
    const refused = results.find((r) => r.status !== 200)!;
    expect([403, 409]).toContain(refused.status);
    expect(refused.body.success).toBe(false);
    const history = await t.db
      .selectFrom('transport_status_history')
      .select('validation_level')
      .where('transport_id', '=', created.id)
      .where('action', '=', 'VALIDATE')
      .execute();
    expect(history).toEqual([{ validation_level: 1 }]);
  });

  it("answers 404 to a team manager for another team's transport and 403 to an agent", async () => {
    const created = await createTransport(t, refs, 'agent2');
    const manager = await t.call('applyTransportAction', {
      token: await t.token('manager'),
      params: { id: created.id },
      body: { action: 'VALIDATE' },
    });
    expect(manager.status).toBe(404);
    expect(manager.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: created.id });
    const agent = await t.call('applyTransportAction', {
      token: await t.token('agent2'),
      params: { id: created.id },
      body: { action: 'VALIDATE' },
    });
    expect(agent.status).toBe(403);
    const row = await t.db.selectFrom('transports').select('status').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('PENDING');
  });

  it('answers 400 for an unknown action', async () => {
    const created = await createTransport(t, refs, 'agent');
    const res = await t.call('applyTransportAction', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      payload: { action: 'TELEPORT' },
    });
    expectInvalid(res, /^body\/action must be one of: /);
    const read = await t.call('getAdminTransportById', { token: await t.token('supervisor'), params: { id: created.id } });
    expect(read.body.result.status).toBe(created.status);
  });
});

describe('GET /admin/transports/{id}/status-history (getTransportStatusHistory)', () => {
  it('lists the creation entry then every action, oldest first, with the author names', async () => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, ['VALIDATE', 'START']);
    const res = await t.call('getTransportStatusHistory', { token: await t.token('manager'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(
      res.body.result.map((h: { action: string; fromStatus: string | null; toStatus: string }) => [h.action, h.fromStatus, h.toStatus]),
    ).toEqual([
      ['CREATE', null, 'PENDING'],
      ['VALIDATE', 'PENDING', 'PENDING'],
      ['VALIDATE', 'PENDING', 'VALIDATED'],
      ['START', 'VALIDATED', 'IN_PROGRESS'],
    ]);
    expect(res.body.result[0]).toMatchObject({
      transportId: created.id,
      comment: null,
      createdBy: { id: refs.user('agent'), name: 'Sarah Benali' },
    });
    expect(res.body.result[2]!.createdBy).toEqual({ id: refs.user('supervisor'), name: 'Moussa Diop' });
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
