import { describe, expect, it } from 'vitest';
import { haversineKm } from '../../../src/modules/tracking/geo.js';
import { useTestApp } from '../../support/app.js';

/** The demo data (seeded into every test database) shows tracking: the demo agent's transports on the road. */
const t = useTestApp();

/** The demo agent's transports of `status` that carry coordinates. */
async function demoTracked(status: 'IN_PROGRESS' | 'COMPLETED') {
  const res = await t.call('listTransports', { token: await t.token('agent'), query: { status, limit: 100 } });
  expect(res.status).toBe(200);
  const found = [];
  for (const { id } of res.body.result.data) {
    const one = await t.call('getTransportById', { token: await t.token('agent'), params: { id } });
    expect(one.status).toBe(200);
    const transport = one.body.result;
    if (transport.loadingCoordinates !== null && transport.unloadingCoordinates !== null) found.push(transport);
  }
  return found;
}

/** Every entry of the transport's timeline (all pages). */
async function timeline(id: number) {
  const entries = [];
  let cursor: string | undefined;
  do {
    const res = await t.call('getTransportTimeline', { token: await t.token('agent'), params: { id }, query: { limit: 100, cursor } });
    expect(res.status).toBe(200);
    entries.push(...res.body.result.data);
    cursor = res.body.result.meta.next_cursor ?? undefined;
  } while (cursor);
  return entries;
}

describe('demo data: transports followed on the road', () => {
  it('has a transport of the demo agent under way, whose tracking answers a recent last position and an ETA in its window', async () => {
    const [transport, ...others] = await demoTracked('IN_PROGRESS');
    expect(others).toEqual([]);
    expect(transport!.unloadingWindow).not.toBeNull();
    expect(transport!.loadingWindow).not.toBeNull();
    const id = transport!.id;
    const res = await t.call('getTransportTracking', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(200);
    const tracking = res.body.result;
    expect(tracking.status).toBe('IN_PROGRESS');
    expect(tracking.lastPosition).not.toBeNull();
    // Reported minutes before the seeding (the test database is seeded as the run starts).
    const age = Date.now() - Date.parse(tracking.lastPosition!.recordedAt);
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(6 * 3600_000);
    // Between the two points, closer to the destination than the start is.
    const total = haversineKm(transport!.loadingCoordinates!, transport!.unloadingCoordinates!);
    expect(tracking.distanceRemainingKm).toBeGreaterThan(0);
    expect(tracking.distanceRemainingKm).toBeLessThan(total);
    expect(tracking.speedBasis).toBe('RECENT');
    expect(tracking.speedKmh).toBeGreaterThan(40);
    expect(tracking.speedKmh).toBeLessThan(110);
    expect(tracking.eta).not.toBeNull();
    expect(Date.parse(tracking.eta!)).toBeGreaterThan(Date.parse(tracking.lastPosition!.recordedAt));
    expect(tracking.late).toBe(false);
    expect(tracking.lastMilestone?.type).toBe('DEPARTED');

    // Dozens of positions, one every few minutes, in the recent past, the latest one being the tracking's.
    const points = await t.db
      .selectFrom('transport_positions')
      .select(['recorded_at', 'latitude', 'longitude', 'speed_kmh'])
      .where('transport_id', '=', id)
      .orderBy('recorded_at')
      .execute();
    expect(points.length).toBeGreaterThanOrEqual(24);
    expect(points.at(-1)!.recorded_at.getTime()).toBe(Date.parse(tracking.lastPosition!.recordedAt));
    // A plausible drive: no jump between consecutive points faster than 130 km/h.
    for (let i = 1; i < points.length; i++) {
      const hours = (points[i]!.recorded_at.getTime() - points[i - 1]!.recorded_at.getTime()) / 3600_000;
      expect(haversineKm(points[i - 1]!, points[i]!) / hours).toBeLessThan(130);
    }

    const entries = await timeline(id);
    const milestones = entries.filter((e) => e.type === 'MILESTONE').map((e) => e.milestone!.type);
    expect(milestones).toEqual(['ARRIVED_AT_LOADING', 'LOADED', 'DEPARTED']);
    // DEPARTED started the transport, as the API records it: the status change at the same instant.
    const departed = entries.find((e) => e.type === 'MILESTONE' && e.milestone!.type === 'DEPARTED')!;
    expect(departed.milestone!.statusChange).toEqual({ action: 'START', fromStatus: 'VALIDATED', toStatus: 'IN_PROGRESS' });
    const start = entries.find((e) => e.type === 'STATUS_CHANGED' && e.status!.action === 'START')!;
    expect(start.occurredAt).toBe(departed.occurredAt);
    // In time order.
    const times = entries.map((e) => Date.parse(e.occurredAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('has a completed transport of the demo agent followed from loading to unloading', async () => {
    const [transport] = await demoTracked('COMPLETED');
    const id = transport!.id;
    const entries = await timeline(id);
    const milestones = entries.filter((e) => e.type === 'MILESTONE').map((e) => e.milestone!.type);
    expect(milestones).toEqual(['ARRIVED_AT_LOADING', 'LOADED', 'DEPARTED', 'ARRIVED_AT_UNLOADING', 'UNLOADED']);
    const res = await t.call('getTransportTracking', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(200);
    const tracking = res.body.result;
    expect(tracking.status).toBe('COMPLETED');
    expect(tracking.lastPosition).not.toBeNull();
    // Arrived within its unloading window, at the unloading point.
    expect(tracking.arrivedAt).not.toBeNull();
    expect(tracking.late).toBe(false);
    expect(tracking.distanceRemainingKm).toBeLessThan(1);
    expect(tracking.lastMilestone?.type).toBe('UNLOADED');
  });
});
