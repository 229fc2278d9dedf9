import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { testConfig } from '../../../src/config.js';
import { connect, poolOf } from '../../../src/db/connect.js';
import { componentValidator, operationById } from '../../support/contract.js';
import { recordCovered } from '../../support/coverage.js';
import { type DemoUser, useTestApp } from '../../support/app.js';
import { openSse, type SseEvent } from '../../support/sse.js';
import { applyActions, loadRefs, type Refs } from '../transports/fixtures.js';
import { track, trackedTransport } from '../tracking/fixtures.js';

const live = { perUser: 2, max: 1000, heartbeatMs: 300, maxStreamMs: 600_000, retentionMinutes: 60 };
const t = useTestApp({ live });
let refs: Refs;
let base: string;
beforeAll(async () => {
  refs = await loadRefs(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

const validEvent = componentValidator('TransportLiveEvent');
/** Every event as the contract describes it (`TransportLiveEvent`: event name, id, data). */
const checked = (events: SseEvent[]) => {
  for (const e of events) {
    const frame = { event: e.event, id: e.id, data: e.data };
    expect(validEvent(frame), `${JSON.stringify(frame)}: ${JSON.stringify(validEvent.errors)}`).toBe(true);
  }
  return events;
};

const open = async (id: number, user: DemoUser | null = 'agent', extra: Record<string, string> = {}, at = base) =>
  openSse(`${at}/trade/transports/${id}/live`, { ...(user ? { authorization: `Bearer ${await t.token(user)}` } : {}), ...extra });

const positions = async (id: number, from: Date, n: number) => {
  const res = await t.call('recordTransportPositions', {
    token: await t.token('agent'),
    params: { id },
    body: { positions: track(from, n) } as never,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.result;
};
const milestone = async (id: number, type: string) => {
  const res = await t.call('recordTransportMilestone', {
    token: await t.token('agent'),
    params: { id },
    body: { type, occurredAt: new Date(Date.now() - 1000).toISOString() } as never,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result;
};

describe('GET /trade/transports/{id}/live (streamTransportLive)', () => {
  it('starts with a snapshot, then streams positions, milestones, status and ETA changes as they commit', async () => {
    const id = await trackedTransport(t, refs);
    const s = await open(id);
    expect(s.status).toBe(200);
    expect(s.headers.get('cache-control')).toBe('no-cache, no-store');
    expect(s.headers.get('content-encoding')).toBeNull();
    const [snapshot] = await s.until(1);
    expect(s.retry).toBe(2000);
    expect(snapshot).toMatchObject({
      event: 'snapshot',
      data: { reason: 'CONNECTED', tracking: { transportId: id, status: 'VALIDATED', lastPosition: null } },
    });

    const start = new Date(Date.now() - 20 * 60_000);
    const batch = track(start, 5);
    await milestone(id, 'DEPARTED');
    const accepted = await positions(id, start, 5);
    const events = checked(await s.until(5));
    expect(events.slice(1).map((e) => e.event)).toEqual(['status', 'milestone', 'position', 'eta']);
    expect(events[1]!.data).toEqual({
      transportId: id,
      action: 'START',
      fromStatus: 'VALIDATED',
      toStatus: 'IN_PROGRESS',
      validationLevel: null,
      comment: 'Milestone DEPARTED',
    });
    expect(events[2]!.data).toMatchObject({ transportId: id, status: 'IN_PROGRESS', milestone: { type: 'DEPARTED', transportId: id } });
    // One event per batch: the latest point of it (the transport's latest position).
    expect(events[3]!.data).toEqual({ transportId: id, accepted: 5, position: accepted.lastPosition });
    expect(events[3]!.data.position.recordedAt).toBe(new Date(batch[4]!.recordedAt).toISOString().replace('.000Z', 'Z'));
    expect(events[4]!.data).toMatchObject({ transportId: id, previousEta: null });
    // Ids increase along the stream.
    const ids = events.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids.slice(1)).size).toBe(4);

    // A status action of the supervisor reaches the agent's stream too.
    await applyActions(t, id, ['REPORT_PROBLEM']);
    const [held] = checked((await s.until(6)).slice(5));
    expect(held).toMatchObject({ event: 'status', data: { action: 'REPORT_PROBLEM', fromStatus: 'IN_PROGRESS', toStatus: 'ON_HOLD' } });
    // Heartbeat comments keep it open between events.
    expect(await s.comment()).toBe('keep-alive');
    s.close();
    // A stream never ends, so the contract-checking client (inject) cannot read its 200: this
    // test checked it instead (every event against TransportLiveEvent, and the media type the
    // contract declares for the 200), which counts for the operation coverage gate.
    const declared = Object.keys((operationById.get('streamTransportLive')!.operation.responses as any)['200'].content);
    expect(declared).toEqual(['text/event-stream']);
    expect(s.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    recordCovered('streamTransportLive');
  });

  it('resumes after a reconnect with Last-Event-ID: the missed events once each, in order, then live ones', async () => {
    const id = await trackedTransport(t, refs, 'agent', ['START']);
    const first = await open(id);
    await first.until(1);
    const t0 = Date.now() - 30 * 60_000;
    await positions(id, new Date(t0), 3);
    const seen = await first.until(3); // snapshot, position, eta
    const lastId = seen.at(-1)!.id!;
    first.close();
    await first.ended;

    // Written while no stream is open.
    await positions(id, new Date(t0 + 5 * 60_000), 2);
    await milestone(id, 'ARRIVED_AT_UNLOADING');
    const after = (from: number) =>
      t.db
        .selectFrom('transport_live_events')
        .select(['id', 'type'])
        .where('transport_id', '=', id)
        .where('id', '>', from)
        .orderBy('id')
        .execute();
    const missed = await after(Number(lastId));
    expect(missed.map((r) => r.type).filter((type) => type !== 'eta')).toEqual(['position', 'milestone']);
    const again = await open(id, 'agent', { 'last-event-id': lastId });
    // No snapshot: exactly the events after the resume point, in order.
    const replayed = checked(await again.until(missed.length));
    expect(replayed.map((e) => [Number(e.id), e.event])).toEqual(missed.map((r) => [r.id, r.type]));
    // Then live: the next events follow the replay without repeating it.
    await milestone(id, 'UNLOADED');
    const all = checked(await again.until(missed.length + 2));
    expect(all.slice(missed.length).map((e) => e.event)).toEqual(['status', 'milestone']);
    expect(all.at(-1)!.data.milestone.type).toBe('UNLOADED');
    const ids = all.map((e) => Number(e.id));
    expect(new Set(ids).size).toBe(ids.length);
    // Exactly what the database holds for the transport after the resume point.
    expect((await after(Number(lastId))).map((r) => [r.id, r.type])).toEqual(all.map((e) => [Number(e.id), e.event]));
    again.close();
  });

  it('answers a resume point older than the retention, or never issued, with a RESYNC snapshot', async () => {
    const id = await trackedTransport(t, refs, 'agent', ['START']);
    await positions(id, new Date(Date.now() - 10 * 60_000), 2);
    const { id: oldest } = await t.db
      .selectFrom('transport_live_events')
      .select('id')
      .where('transport_id', '=', id)
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow();
    // Everything written up to now is past the retention an hour and a minute from now.
    expect(await t.app.sweepLiveEvents(new Date(Date.now() + 61 * 60_000))).toBeGreaterThan(0);
    const stale = await open(id, 'agent', { 'last-event-id': String(oldest - 1) });
    const [snapshot] = checked(await stale.until(1));
    expect(snapshot).toMatchObject({ event: 'snapshot', data: { reason: 'RESYNC', tracking: { transportId: id, status: 'IN_PROGRESS' } } });
    expect(snapshot!.data.tracking.lastPosition).not.toBeNull();
    stale.close();
    const unknown = await open(id, 'agent', { 'last-event-id': '999999999999' });
    expect((await unknown.until(1))[0]).toMatchObject({ event: 'snapshot', data: { reason: 'RESYNC' } });
    // The snapshot's id resumes without loss: the next event comes after it.
    await positions(id, new Date(Date.now() - 5 * 60_000), 1);
    const [, next] = await unknown.until(2);
    expect(next!.event).toBe('position');
    expect(Number(next!.id)).toBeGreaterThan(Number(unknown.events[0]!.id));
    unknown.close();
  });

  it('is scoped like the transport: 404 outside the scope, 401 without credentials, 400 for a malformed Last-Event-ID', async () => {
    const id = await trackedTransport(t, refs);
    const other = await open(id, 'agent2');
    expect(other.status).toBe(404);
    expect(other.events[0]!.data.errors).toMatchObject({ code: 'TRANSPORT_NOT_FOUND' });
    const anonymous = await open(id, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.events[0]!.data.success).toBe(false);
    const bad = await open(id, 'agent', { 'last-event-id': 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.events[0]!.data.errors).toEqual(['headers/last-event-id must match pattern "^[0-9]{1,18}$"']);
    // The same answers through the contract-checked client.
    const viaInject = await t.call('streamTransportLive', { token: await t.token('agent2'), params: { id } });
    expect(viaInject.status).toBe(404);
    // A supervisor sees every transport.
    const supervisor = await open(id, 'supervisor');
    expect(supervisor.status).toBe(200);
    expect((await supervisor.until(1))[0]!.data.tracking.transportId).toBe(id);
    supervisor.close();
  });

  it('ends a stream within a heartbeat once its session is logged out, or its API key revoked, and refuses its reconnection', async () => {
    const id = await trackedTransport(t, refs);
    // A session of its own (the shared test token stays valid for the other tests).
    const login = await t.call('login', { body: { username: 'agent', password: 'demo1234' } });
    expect(login.status).toBe(200);
    const token = login.body.result.access_token;
    const bySession = await openSse(`${base}/trade/transports/${id}/live`, { authorization: `Bearer ${token}` });
    expect((await bySession.until(1))[0]!.event).toBe('snapshot');

    const created = await t.call('createApiKey', {
      token: await t.token('admin'),
      body: {
        name: 'Dispatch screen',
        roleId: (
          await t.db.selectFrom('roles').select('id').where('access_level', '=', 'supervisor').orderBy('id').executeTakeFirstOrThrow()
        ).id,
      },
    });
    expect(created.status).toBe(201);
    const key = created.body.result.key!;
    const byKey = await openSse(`${base}/trade/transports/${id}/live`, { 'x-api-key': key });
    expect((await byKey.until(1))[0]!.event).toBe('snapshot');

    // Both still open after several heartbeats (300 ms here) while their credentials hold.
    await new Promise((r) => setTimeout(r, 1000));
    expect(bySession.comments.filter((c) => c === 'keep-alive').length).toBeGreaterThan(0);
    let sessionEnded = false;
    let keyEnded = false;
    void bySession.ended.then(() => (sessionEnded = true));
    void byKey.ended.then(() => (keyEnded = true));
    expect([sessionEnded, keyEnded]).toEqual([false, false]);

    expect((await t.call('logout', { token })).status).toBe(200);
    await bySession.ended;
    expect(keyEnded).toBe(false);
    const again = await openSse(`${base}/trade/transports/${id}/live`, { authorization: `Bearer ${token}` });
    expect(again.status).toBe(401);

    const revoked = await t.call('revokeApiKey', { token: await t.token('admin'), params: { id: created.body.result.id } });
    expect(revoked.status).toBe(200);
    await byKey.ended;
    const refused = await openSse(`${base}/trade/transports/${id}/live`, { 'x-api-key': key });
    expect(refused.status).toBe(401);
    expect(refused.events[0]!.data.errors).toEqual(['API key is unknown or revoked']);
  });

  it('holds at most LIVE_STREAMS_PER_USER streams per user (429 LIVE_STREAM_LIMIT), and frees the place when a client leaves', async () => {
    const id = await trackedTransport(t, refs, 'manager');
    const userId = (await t.db.selectFrom('users').select('id').where('username', '=', 'manager').executeTakeFirstOrThrow()).id;
    const a = await open(id, 'manager');
    const b = await open(id, 'manager');
    await Promise.all([a.until(1), b.until(1)]);
    expect(t.app.live.count(userId)).toBe(2);
    const refused = await open(id, 'manager');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.events[0]!.data.errors).toEqual({ code: 'LIVE_STREAM_LIMIT', scope: 'USER', limit: 2, retryAfterSeconds: 5 });
    const viaInject = await t.call('streamTransportLive', { token: await t.token('manager'), params: { id } });
    expect(viaInject.status).toBe(429);
    // Another user is not affected.
    const admin = await open(id, 'admin');
    expect(admin.status).toBe(200);
    a.close();
    await a.ended;
    while (t.app.live.count(userId) > 1) await new Promise((r) => setTimeout(r, 20));
    const c = await open(id, 'manager');
    expect(c.status).toBe(200);
    for (const s of [b, c, admin]) s.close();
  });
});

describe.skipIf(!process.env.DATABASE_URL)('live streams across instances (PostgreSQL)', () => {
  it('delivers a change written through one instance to a subscriber of another, and ends its streams as it shuts down', async () => {
    // On the embedded database there is one process and one instance: nothing to cross.
    const url = poolOf(t.db)!.options.connectionString!;
    const db = connect({ kind: 'postgres', url, poolSize: 3 });
    let other: FastifyInstance | null = await buildApp(testConfig({ seedDemoData: false, live, jwt: t.app.config.jwt }), { db });
    try {
      await other.listen({ port: 0, host: '127.0.0.1' });
      const at = `http://127.0.0.1:${(other.server.address() as AddressInfo).port}`;
      const id = await trackedTransport(t, refs);
      // The token of instance A is valid on B (same signing secret, same database).
      const s = await open(id, 'agent', {}, at);
      expect(s.status, JSON.stringify(s.events)).toBe(200);
      await s.until(1);
      await milestone(id, 'DEPARTED'); // written through instance A
      const events = checked(await s.until(3));
      expect(events.slice(1).map((e) => e.event)).toEqual(['status', 'milestone']);
      // Closing B ends its stream at once (the close does not wait for the client).
      const closing = other.close();
      other = null;
      await s.ended;
      await closing;
    } finally {
      await other?.close();
      await db.destroy();
    }
  });
});
