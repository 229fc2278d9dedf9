import { describe, expect, inject, it } from 'vitest';
import { ApiError, memoryTokenStore } from '../src/index.js';
import { subscribeTransportLive, type TransportLiveEvent } from '../src/live.js';

const baseUrl = inject('mockUrl');

describe('subscribeTransportLive against the mock of the contract', () => {
  it("reads the example stream as typed events, and reconnects with the last event's id when the stream ends", async () => {
    const sent: (string | null)[] = [];
    const events: TransportLiveEvent[] = [];
    const live = subscribeTransportLive(
      {
        baseUrl,
        tokens: memoryTokenStore({ accessToken: 'token', refreshToken: null }),
        fetch: (request) => {
          sent.push(request.headers.get('last-event-id'));
          return fetch(request);
        },
      },
      1042,
      { onEvent: (e) => events.push(e), retryMs: 10 },
    );
    while (sent.length < 2) await new Promise((r) => setTimeout(r, 20));
    live.close();
    await live.done;
    // The contract's example: a snapshot, a status change, a milestone and a position.
    expect(events.slice(0, 4).map((e) => e.event)).toEqual(['snapshot', 'status', 'milestone', 'position']);
    const [snapshot, , milestone] = events;
    if (snapshot?.event !== 'snapshot' || milestone?.event !== 'milestone') throw new Error('unexpected events');
    expect(snapshot.data.tracking.transportId).toBe(1042);
    expect(milestone.data.milestone.type).toBe('DEPARTED');
    // The first connection sent none; the next one the id of the last event of the first.
    expect(sent[0]).toBeNull();
    expect(sent[1]).toBe('48240');
  });

  it('stops with the ApiError of an answer that is not retried (401 without credentials)', async () => {
    const errors: unknown[] = [];
    const live = subscribeTransportLive({ baseUrl }, 1042, { onEvent: () => undefined, onError: (e) => errors.push(e) });
    const failure = await live.done.then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(401);
    expect(errors).toEqual([failure]);
  });
});
