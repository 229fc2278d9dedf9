import { expect } from 'vitest';

/** One Server-Sent Event as the stream carried it (`data` parsed as JSON). */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** Events received so far, in order. */
  events: SseEvent[];
  /** Comment lines received so far (`: keep-alive`), and `retry:` values. */
  comments: string[];
  retry: number | null;
  /** Waits until `n` events have arrived in all (or the stream ends: then fails), returns them all. */
  until(n: number): Promise<SseEvent[]>;
  /** Waits until a comment line arrives. */
  comment(): Promise<string>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/**
 * Opens `url` over real HTTP with fetch (as the SDK does) and parses the event stream as the SSE
 * specification says (fields `id`, `event`, `data`, `retry`; comment lines; blank line ends an event).
 * A non-200 answer resolves with its status and no events (the body is in `events[0].data`).
 */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let retry: number | null = null;
  let waiters: (() => void)[] = [];
  const notify = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  let done = false;
  const stream: SseStream = {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    get retry() {
      return retry;
    },
    async until(n) {
      while (events.length < n) {
        if (done) throw new Error(`the stream ended after ${events.length} events, ${n} awaited: ${JSON.stringify(events)}`);
        await new Promise<void>((r) => waiters.push(r));
      }
      return events;
    },
    async comment() {
      const before = comments.length;
      while (comments.length === before) {
        if (done) throw new Error('the stream ended without a comment');
        await new Promise<void>((r) => waiters.push(r));
      }
      return comments.at(-1)!;
    },
    ended: Promise.resolve(),
    close: () => abort.abort(),
  };
  if (res.status !== 200) {
    events.push({ id: undefined, event: 'error', data: await res.json() });
    done = true;
    return stream;
  }
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    let current: { id?: string; event?: string; data: string[] } = { data: [] };
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          nl = buffer.indexOf('\n');
          if (line === '') {
            if (current.data.length > 0)
              events.push({ id: current.id, event: current.event ?? 'message', data: JSON.parse(current.data.join('\n')) });
            current = { data: [] };
            continue;
          }
          if (line.startsWith(':')) {
            comments.push(line.slice(1).trim());
            continue;
          }
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') current.id = value;
          else if (field === 'event') current.event = value;
          else if (field === 'data') current.data.push(value);
          else if (field === 'retry') retry = Number(value);
        }
        notify();
      }
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
    } finally {
      done = true;
      notify();
    }
  })();
  return stream;
}
