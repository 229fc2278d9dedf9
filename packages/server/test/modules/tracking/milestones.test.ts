import { beforeAll, describe, expect, it } from 'vitest';
import { type DemoUser, useTestApp } from '../../support/app.js';
import { loadRefs, type Refs } from '../transports/fixtures.js';
import { trackedTransport } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const record = async (user: DemoUser, id: number, body: Record<string, unknown>) =>
  t.call('recordTransportMilestone', {
    token: await t.token(user),
    params: { id },
    body: { occurredAt: new Date(Date.now() - 60_000).toISOString(), ...body } as never,
  });

const statusOf = async (id: number) =>
  (await t.db.selectFrom('transports').select(['status']).where('id', '=', id).executeTakeFirstOrThrow()).status;

const eventsOf = async (id: number, type: 'transport.milestone_recorded' | 'transport.status_changed') =>
  t.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('resource_type', '=', 'transport')
    .where('resource_id', '=', id)
    .where('type', '=', type)
    .orderBy('id')
    .execute();

describe('POST /trade/transports/{id}/milestones (recordTransportMilestone)', () => {
  it('DEPARTED starts a validated transport and UNLOADED completes it, through the workflow and its history', async () => {
    const id = await trackedTransport(t, refs);
    const departed = await record('agent', id, { type: 'DEPARTED', note: 'Left the gate', position: { latitude: 45.7, longitude: 4.8 } });
    expect(departed.status).toBe(201);
    expect(departed.body.result).toMatchObject({
      transportId: id,
      type: 'DEPARTED',
      note: 'Left the gate',
      position: { latitude: 45.7, longitude: 4.8 },
      statusChange: { action: 'START', fromStatus: 'VALIDATED', toStatus: 'IN_PROGRESS' },
      complaintId: null,
    });
    expect(await statusOf(id)).toBe('IN_PROGRESS');
    const loaded = await record('agent', id, { type: 'ARRIVED_AT_UNLOADING' });
    expect(loaded.body.result.statusChange).toBeNull();
    expect(await statusOf(id)).toBe('IN_PROGRESS');
    const unloaded = await record('agent', id, { type: 'UNLOADED' });
    expect(unloaded.body.result.statusChange).toEqual({ action: 'FINISH', fromStatus: 'IN_PROGRESS', toStatus: 'COMPLETED' });
    expect(await statusOf(id)).toBe('COMPLETED');
    const history = await t.db
      .selectFrom('transport_status_history')
      .select(['action', 'from_status', 'to_status', 'comment'])
      .where('transport_id', '=', id)
      .orderBy('id')
      .execute();
    expect(history.slice(-2)).toEqual([
      { action: 'START', from_status: 'VALIDATED', to_status: 'IN_PROGRESS', comment: 'Left the gate' },
      { action: 'FINISH', from_status: 'IN_PROGRESS', to_status: 'COMPLETED', comment: 'Milestone UNLOADED' },
    ]);
    const recorded = await eventsOf(id, 'transport.milestone_recorded');
    expect(recorded.map((e) => (e.data as { milestone: { type: string } }).milestone.type)).toEqual([
      'DEPARTED',
      'ARRIVED_AT_UNLOADING',
      'UNLOADED',
    ]);
    const changed = await eventsOf(id, 'transport.status_changed');
    expect(changed.map((e) => (e.data as { action: string }).action).slice(-2)).toEqual(['START', 'FINISH']);
  });

  it('DEPARTED resumes a transport on hold; UNLOADED before departure is refused and records nothing', async () => {
    const held = await trackedTransport(t, refs, 'agent', ['START', 'REPORT_PROBLEM']);
    const resumed = await record('agent', held, { type: 'DEPARTED' });
    expect(resumed.body.result.statusChange).toEqual({ action: 'RESUME', fromStatus: 'ON_HOLD', toStatus: 'IN_PROGRESS' });
    const validated = await trackedTransport(t, refs);
    const early = await record('agent', validated, { type: 'UNLOADED' });
    expect(early.status).toBe(409);
    expect(early.body.errors).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', currentStatus: 'VALIDATED', requested: 'FINISH' });
    const rows = await t.db.selectFrom('transport_milestones').select('id').where('transport_id', '=', validated).execute();
    expect(rows).toEqual([]);
    expect(await statusOf(validated)).toBe('VALIDATED');
  });

  it('an INCIDENT opens a complaint when asked, once per transport', async () => {
    const id = await trackedTransport(t, refs, 'agent', ['START']);
    const incident = await record('agent', id, {
      type: 'INCIDENT',
      note: 'Load shifted',
      complaint: { label: 'Load shifted on the A7', description: 'Two coils moved' },
    });
    expect(incident.status).toBe(201);
    const complaintId = incident.body.result.complaintId!;
    const complaint = await t.db
      .selectFrom('complaints')
      .select(['label', 'transport_id'])
      .where('id', '=', complaintId)
      .executeTakeFirstOrThrow();
    expect(complaint).toEqual({ label: 'Load shifted on the A7', transport_id: id });
    const created = await t.db
      .selectFrom('events')
      .select('resource_id')
      .where('type', '=', 'complaint.created')
      .where('resource_id', '=', complaintId)
      .execute();
    expect(created).toHaveLength(1);
    const again = await record('agent', id, { type: 'INCIDENT', complaint: { label: 'Another one' } });
    expect(again.status).toBe(409);
    expect(again.body.errors).toMatchObject({ code: 'COMPLAINT_EXISTS', existingComplaintId: complaintId });
    const wrongType = await record('agent', id, { type: 'DELAYED', complaint: { label: 'Late truck' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors).toEqual(['body/complaint is allowed only with type INCIDENT']);
  });

  it('answers 404 outside the scope and 409 before validation', async () => {
    const id = await trackedTransport(t, refs);
    const other = await record('agent2', id, { type: 'DEPARTED' });
    expect(other.status).toBe(404);
    expect(other.body.errors).toMatchObject({ code: 'TRANSPORT_NOT_FOUND', transportId: id });
    expect(await statusOf(id)).toBe('VALIDATED');
    const manager = await record('supervisor', id, { type: 'LOADED' });
    expect(manager.status).toBe(201);
    expect(manager.body.result.type).toBe('LOADED');
    const pending = await t.call('createTransport', {
      token: await t.token('agent'),
      body: { chargerFirstName: 'A', chargerLastName: 'B', vehicleTypeId: refs.vehicleType('Semi-trailer truck'), loadingPoint: 'Lyon' },
    });
    const refused = await record('agent', pending.body.result.id, { type: 'ARRIVED_AT_LOADING' });
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toMatchObject({ code: 'NOT_TRACKABLE', status: 'PENDING' });
  });
});
