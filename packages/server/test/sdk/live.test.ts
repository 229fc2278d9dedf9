import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTransportOpsClient } from '../../../sdk/src/index.js';
import { subscribeTransportLive, type TransportLiveEvent } from '../../../sdk/src/live.js';
import { DEMO_PASSWORD, useTestApp } from '../support/app.js';
import { loadRefs, type Refs } from '../modules/transports/fixtures.js';
import { track, trackedTransport } from '../modules/tracking/fixtures.js';

/*
 * The SDK's `subscribeTransportLive` (`@transport-ops/sdk/live`) against the real server over
 * HTTP: the server ends each stream after 0.6 s here, so the helper reconnects with
 * Last-Event-ID again and again while changes are written; the events it hands over are exactly
 * the transport's, once each and in order.
 */

const t = useTestApp({ live: { perUser: 5, max: 100, heartbeatMs: 100, maxStreamMs: 600, retentionMinutes: 60 } });
let refs: Refs;
let baseUrl: string;
beforeAll(async () => {
  refs = await loadRefs(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

describe("the SDK's subscribeTransportLive on the server's stream", () => {
  it('hands over typed events once each, in order, across reconnections with Last-Event-ID', async () => {
    const id = await trackedTransport(t, refs);
    const api = createTransportOpsClient({ baseUrl });
    await api.login('agent', DEMO_PASSWORD);
    const requests: (string | null)[] = [];
    const events: TransportLiveEvent[] = [];
    let waiting: (() => void) | null = null;
    const live = subscribeTransportLive(
      {
        baseUrl,
        tokens: api.tokens,
        fetch: (request) => {
          requests.push(request.headers.get('last-event-id'));
          return fetch(request);
        },
      },
      id,
      {
        onEvent: (e) => {
          events.push(e);
          waiting?.();
        },
      },
    );
    const until = async (test: () => boolean) => {
      while (!test()) await new Promise<void>((r) => (waiting = r));
    };
    await until(() => events.length >= 1);
    expect(events[0]!.event).toBe('snapshot');
    await api.op.recordTransportMilestone({ id }, { type: 'DEPARTED', occurredAt: new Date(Date.now() - 60_000).toISOString() });
    await until(() => events.some((e) => e.event === 'milestone'));
    // The server ended the first stream: the helper reconnected with the last id it had.
    while (requests.length < 2) await new Promise((r) => setTimeout(r, 50));
    const positions = track(new Date(Date.now() - 10 * 60_000), 4);
    await api.op.recordTransportPositions({ id }, { positions });
    await until(() => events.some((e) => e.event === 'position'));
    live.close();
    await live.done;

    // Narrowing on `event` types `data`.
    const position = events.find((e) => e.event === 'position');
    if (position?.event !== 'position') throw new Error('no position event');
    expect(position.data.position.latitude).toBe(positions[3]!.latitude);
    expect(requests[0]).toBeNull();
    expect(requests.length).toBeGreaterThanOrEqual(2);
    // Every reconnection resumed from the last event received before it.
    for (const resumed of requests.slice(1)) expect(events.map((e) => e.id)).toContain(resumed);
    // Once each, in order: exactly the transport's live events after the snapshot (its id: the validations before it).
    const stored = await t.db
      .selectFrom('transport_live_events')
      .select(['id', 'type'])
      .where('transport_id', '=', id)
      .where('id', '>', Number(events[0]!.id))
      .orderBy('id')
      .execute();
    expect(events.slice(1).map((e) => [Number(e.id), e.event])).toEqual(stored.map((r) => [r.id, r.type]));
    expect(live.lastEventId).toBe(String(stored.at(-1)!.id));
  });
});
