import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { loadRefs, type Refs } from '../transports/fixtures.js';
import { track, trackedTransport } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const post = async (user: 'agent' | 'agent2' | 'supervisor', id: number, positions: object[]) =>
  t.call('recordTransportPositions', { token: await t.token(user), params: { id }, body: { positions } as never });

describe('POST /trade/transports/{id}/positions (recordTransportPositions)', () => {
  it('stores a batch in any order and keeps the newest point as the last position', async () => {
    const id = await trackedTransport(t, refs);
    const points = track(new Date(Date.now() - 3600_000), 10);
    const shuffled = [points[7], points[2], points[9], points[0], points[5], points[1], points[8], points[3], points[6], points[4]];
    const res = await post('agent', id, shuffled as object[]);
    expect(res.status).toBe(202);
    expect(res.body.result).toMatchObject({ transportId: id, accepted: 10, duplicates: 0 });
    expect(new Date(res.body.result.lastPosition.recordedAt).toISOString()).toBe(points[9]!.recordedAt);
    const rows = await t.db.selectFrom('transport_positions').select(['recorded_at']).where('transport_id', '=', id).orderBy('recorded_at').execute();
    expect(rows.map((r) => r.recorded_at.toISOString())).toEqual(points.map((p) => p.recordedAt));
  });

  it('ignores duplicates within a batch and against stored points; an older batch never replaces the last position', async () => {
    const id = await trackedTransport(t, refs);
    const points = track(new Date(Date.now() - 3600_000), 6);
    const first = await post('agent', id, points.slice(3));
    expect(first.body.result).toMatchObject({ accepted: 3, duplicates: 0 });
    const late = await post('agent', id, [points[0]!, points[1]!, points[1]!, points[2]!, points[3]!, { ...points[4]!, latitude: 10 }]);
    expect(late.status).toBe(202);
    expect(late.body.result).toMatchObject({ accepted: 3, duplicates: 3 });
    expect(new Date(late.body.result.lastPosition.recordedAt).toISOString()).toBe(points[5]!.recordedAt);
    const stored = await t.db.selectFrom('transport_positions').select(['recorded_at', 'latitude']).where('transport_id', '=', id).orderBy('recorded_at').execute();
    expect(stored).toHaveLength(6);
    // The first stored point of an instant wins.
    expect(stored[4]!.latitude).toBeCloseTo(points[4]!.latitude, 9);
    const tracking = await t.call('getTransportTracking', { token: await t.token('agent'), params: { id } });
    expect(new Date(tracking.body.result.lastPosition!.recordedAt).toISOString()).toBe(points[5]!.recordedAt);
  });

  it('answers 404 for a transport outside the scope and 409 before validation', async () => {
    const id = await trackedTransport(t, refs);
    const points = track(new Date(Date.now() - 600_000), 2);
    const other = await post('agent2', id, points);
    expect(other.status).toBe(404);
    expect(other.body.errors).toMatchObject({ code: 'TRANSPORT_NOT_FOUND', transportId: id });
    const count = await t.db.selectFrom('transport_positions').select((eb) => eb.fn.countAll<number>().as('n')).where('transport_id', '=', id).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
    const created = await t.call('createTransport', {
      token: await t.token('agent'),
      body: { chargerFirstName: 'A', chargerLastName: 'B', vehicleTypeId: refs.vehicleType('Semi-trailer truck'), loadingPoint: 'Lyon' },
    });
    const pending = await post('agent', created.body.result.id, points);
    expect(pending.status).toBe(409);
    expect(pending.body.errors).toMatchObject({ code: 'NOT_TRACKABLE', status: 'PENDING' });
  });

  it('refuses a point older than 7 days, naming it', async () => {
    const id = await trackedTransport(t, refs);
    const old = track(new Date(Date.now() - 8 * 86_400_000), 1);
    const res = await post('agent', id, [...track(new Date(Date.now() - 60_000), 1), ...old]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/positions/1/recordedAt must lie within the last 7 days and at most 5 minutes ahead']);
  });
});
