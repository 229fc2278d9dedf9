import { beforeAll, describe, expect, it } from 'vitest';
import { haversineKm } from '../../../src/modules/tracking/geo.js';
import { useTestApp } from '../../support/app.js';
import { loadRefs, type Refs } from '../transports/fixtures.js';
import { FOS, track, trackedTransport } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const post = async (id: number, positions: object[]) =>
  t.call('recordTransportPositions', { token: await t.token('agent'), params: { id }, body: { positions } as never });
const tracking = async (id: number, user: 'agent' | 'agent2' | 'manager' = 'agent') =>
  t.call('getTransportTracking', { token: await t.token(user), params: { id } });
const etaEvents = async (id: number) =>
  (
    await t.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'transport.eta_changed')
      .where('resource_id', '=', id)
      .orderBy('id')
      .execute()
  ).map((e) => e.data as { eta: string; previousEta: string | null });

describe('GET /trade/transports/{id}/tracking (getTransportTracking)', () => {
  it('before any position: no last position, no ETA; the window is given', async () => {
    const end = new Date(Date.now() + 6 * 3600_000);
    const id = await trackedTransport(t, refs, 'agent', [], { start: new Date(end.getTime() - 3600_000), end });
    const res = await tracking(id);
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      transportId: id,
      status: 'VALIDATED',
      lastPosition: null,
      destination: FOS,
      distanceRemainingKm: null,
      eta: null,
      late: false,
      lateByMinutes: 0,
      lastMilestone: null,
    });
    expect(new Date(res.body.result.unloadingWindow!.end).getTime()).toBe(end.getTime());
  });

  it('computes the distance remaining, the recent speed and the ETA from the last position, and lateness against the window', async () => {
    const end = new Date(Date.now() - 60_000);
    const id = await trackedTransport(t, refs, 'agent', ['START'], { start: new Date(end.getTime() - 3600_000), end });
    const points = track(new Date(Date.now() - 20 * 60_000), 30, 30, 80);
    await post(id, points);
    const { result } = (await tracking(id)).body;
    const last = points.at(-1)!;
    const km = haversineKm(last, FOS);
    expect(result.distanceRemainingKm).toBeCloseTo(km, 0);
    expect(result.speedBasis).toBe('RECENT');
    expect(result.speedKmh).toBeGreaterThan(78);
    expect(result.speedKmh).toBeLessThan(82);
    const expectedEta = new Date(last.recordedAt).getTime() + (result.distanceRemainingKm! / result.speedKmh!) * 3600_000;
    expect(Math.abs(new Date(result.eta!).getTime() - expectedEta)).toBeLessThan(1000);
    // The window ended a minute ago and the truck is about 3 hours away.
    expect(result.late).toBe(true);
    expect(result.lateByMinutes).toBeGreaterThan(120);
  });

  it('falls back to 60 km/h on a stopped track, and announces ETA moves over 10 minutes only', async () => {
    const id = await trackedTransport(t, refs, 'agent', ['START']);
    const start = Date.now() - 100 * 60_000;
    const moving = track(new Date(start), 60, 30, 80);
    await post(id, moving.slice(0, 40));
    await post(id, moving.slice(40));
    // The same ETA within a few seconds: one announcement only.
    expect(await etaEvents(id)).toHaveLength(1);
    expect((await etaEvents(id))[0]!.previousEta).toBeNull();
    const stop = moving.at(-1)!;
    const stopped = Array.from({ length: 70 }, (_, i) => ({
      ...stop,
      recordedAt: new Date(start + 30 * 60_000 + (i + 1) * 30_000).toISOString(),
    }));
    await post(id, stopped);
    const { result } = (await tracking(id)).body;
    expect(result.speedBasis).toBe('FALLBACK');
    expect(result.speedKmh).toBe(60);
    const events = await etaEvents(id);
    expect(events).toHaveLength(2);
    expect(events[1]!.eta).toBe(result.eta);
    expect(new Date(events[1]!.previousEta!).getTime()).toBe(new Date(events[0]!.eta).getTime());
  });

  it('answers 404 outside the scope', async () => {
    const id = await trackedTransport(t, refs);
    const res = await tracking(id, 'agent2');
    expect(res.status).toBe(404);
    expect(res.body.errors).toMatchObject({ code: 'TRANSPORT_NOT_FOUND', transportId: id });
  });
});

describe('GET /trade/transports/{id}/timeline (getTransportTimeline)', () => {
  it('lists status changes, milestones and the complaint in time order, paged by cursor without repeats or gaps', async () => {
    const id = await trackedTransport(t, refs);
    const token = await t.token('agent');
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
    for (const [type, at] of [
      ['ARRIVED_AT_LOADING', 50],
      ['LOADED', 40],
      ['DEPARTED', 30],
      ['DELAYED', 20],
    ] as const) {
      const res = await t.call('recordTransportMilestone', { token, params: { id }, body: { type, occurredAt: minutesAgo(at) } });
      expect(res.status).toBe(201);
    }
    await t.call('recordTransportMilestone', {
      token,
      params: { id },
      body: { type: 'INCIDENT', occurredAt: minutesAgo(10), complaint: { label: 'Pallet damaged' } },
    });
    const all = await t.call('getTransportTimeline', { token, params: { id }, query: { limit: 100 } });
    expect(all.status).toBe(200);
    const entries = all.body.result.data;
    expect(all.body.result.meta.next_cursor).toBeNull();
    const times = entries.map((e) => new Date(e.occurredAt).getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(entries.filter((e) => e.type === 'MILESTONE').map((e) => e.milestone!.type)).toEqual([
      'ARRIVED_AT_LOADING',
      'LOADED',
      'DEPARTED',
      'DELAYED',
      'INCIDENT',
    ]);
    expect(entries.filter((e) => e.type === 'STATUS_CHANGED').map((e) => e.status!.action)).toEqual([
      'CREATE',
      'VALIDATE',
      'VALIDATE',
      'START',
    ]);
    expect(entries.find((e) => e.type === 'STATUS_CHANGED' && e.status!.validationLevel === 2)!.summary).toBe(
      'VALIDATE at level 2 (PENDING -> VALIDATED)',
    );
    expect(entries.filter((e) => e.type === 'COMPLAINT_OPENED').map((e) => e.complaint!.label)).toEqual(['Pallet damaged']);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await t.call('getTransportTimeline', { token, params: { id }, query: { limit: 3, ...(cursor ? { cursor } : {}) } });
      expect(page.body.result.data.length).toBeLessThanOrEqual(3);
      paged.push(...page.body.result.data.map((e) => e.id));
      cursor = page.body.result.meta.next_cursor ?? undefined;
    } while (cursor);
    expect(paged).toEqual(entries.map((e) => e.id));
  });

  it('refuses a malformed cursor and a transport outside the scope', async () => {
    const id = await trackedTransport(t, refs);
    const bad = await t.call('getTransportTimeline', {
      token: await t.token('agent'),
      params: { id },
      query: { cursor: 'bm90LWEtY3Vyc29y' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['querystring/cursor is not a cursor of this timeline']);
    const other = await t.call('getTransportTimeline', { token: await t.token('agent2'), params: { id } });
    expect(other.status).toBe(404);
    expect(other.body.errors).toMatchObject({ code: 'TRANSPORT_NOT_FOUND' });
  });
});
