/*
 * Following a transport live (`@transport-ops/sdk/live`): `GET /trade/transports/{id}/live` read
 * with fetch streaming (a browser's EventSource cannot send the Authorization header), parsed as
 * Server-Sent Events, typed by the contract's `TransportLiveEvent`, and resumed after a lost
 * connection with `Last-Event-ID` (no gap, no duplicate). A separate entry point: the client's
 * bundle does not carry it (scripts/size.mjs checks).
 */
import { apiError, type ApiError } from './errors.js';
import type { components } from './schema.js';
import type { TokenStore } from './tokens.js';

/** One event of the stream: narrow on `event` to get its `data`. */
export type TransportLiveEvent = components['schemas']['TransportLiveEvent'];
export type TransportLiveEventName = TransportLiveEvent['event'];
const KNOWN: ReadonlySet<string> = new Set<TransportLiveEventName>(['snapshot', 'position', 'milestone', 'eta', 'status', 'delivered']);

export interface LiveConnection {
  /** Where the API is, e.g. `https://api.transport-ops.example`. */
  baseUrl: string;
  /** Where the access token is read at each (re)connection: the client's `api.tokens`. */
  tokens?: TokenStore;
  /** Headers sent with each connection (an `X-API-Key`, or an Authorization of your own); a function is called at each. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** A fetch implementation; `globalThis.fetch` by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface SubscribeOptions {
  /** Called with each event, in order, once each. */
  onEvent: (event: TransportLiveEvent) => void;
  /**
   * Called when a connection fails or ends (the stream then reconnects), and with the ApiError
   * that stops it (a 4xx other than 429: 401, 403, 404...).
   */
  onError?: (error: unknown) => void;
  /** Closes the stream when aborted. */
  signal?: AbortSignal;
  /** Resume after this event id (from an earlier subscription) instead of starting with a snapshot. */
  lastEventId?: string;
  /** Delay before reconnecting in ms, until the server sends its own (`retry:`); default 2000. */
  retryMs?: number;
}

export interface LiveSubscription {
  /** The id of the last event received (what a reconnection sends as `Last-Event-ID`). */
  readonly lastEventId: string | undefined;
  /** Stops the stream. */
  close(): void;
  /** Settles when the stream stops for good: resolves after `close` or the signal, rejects with the ApiError that stopped it. */
  readonly done: Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Follows transport `id`: `onEvent` gets every event (first a `snapshot`, unless `lastEventId`
 * is given), in order; after a lost connection, a server restart or the server's end of a stream
 * (30 minutes, token expiry) it reconnects with `Last-Event-ID`, reading the access token again.
 * A 429 or 5xx answer is retried after `Retry-After`; any other error answer stops it (`done`
 * rejects with the ApiError).
 *
 * ```ts
 * const api = createTransportOpsClient({ baseUrl });
 * const live = subscribeTransportLive({ baseUrl, tokens: api.tokens }, 1042, {
 *   onEvent: (e) => { if (e.event === 'position') map.moveTo(e.data.position); },
 * });
 * ```
 */
export function subscribeTransportLive(connection: LiveConnection, id: number, options: SubscribeOptions): LiveSubscription {
  const stop = new AbortController();
  if (options.signal) {
    if (options.signal.aborted) stop.abort();
    else options.signal.addEventListener('abort', () => stop.abort(), { once: true });
  }
  const send = connection.fetch ?? ((request: Request) => globalThis.fetch(request));
  const url = `${connection.baseUrl.replace(/\/$/, '')}/trade/transports/${encodeURIComponent(String(id))}/live`;
  let lastEventId = options.lastEventId;
  let retryMs = options.retryMs ?? 2000;

  const connect = async (): Promise<Response> => {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    const token = (await connection.tokens?.get())?.accessToken;
    if (token) headers.authorization = `Bearer ${token}`;
    Object.assign(headers, typeof connection.headers === 'function' ? await connection.headers() : connection.headers);
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return send(new Request(url, { headers, signal: stop.signal }));
  };

  /** Reads one response to its end, handing over each complete event. */
  const read = async (body: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let buffer = '';
    let frame: { id?: string; event?: string; data: string[] } = { data: [] };
    const reader = body.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          nl = buffer.indexOf('\n');
          if (line === '') {
            if (frame.id !== undefined) lastEventId = frame.id;
            if (frame.data.length > 0 && frame.event && KNOWN.has(frame.event) && frame.id !== undefined) {
              options.onEvent({ event: frame.event, id: frame.id, data: JSON.parse(frame.data.join('\n')) } as TransportLiveEvent);
            }
            frame = { data: [] };
          } else if (!line.startsWith(':')) {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') frame.id = value;
            else if (field === 'event') frame.event = value;
            else if (field === 'data') frame.data.push(value);
            else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
          }
        }
      }
    } finally {
      reader.releaseLock();
    }
  };

  const done = (async () => {
    while (!stop.signal.aborted) {
      let wait = retryMs;
      try {
        const response = await connect();
        if (response.ok && response.body) {
          await read(response.body);
        } else {
          const text = await response.text().catch(() => '');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          const error: ApiError = apiError(response, body);
          if (response.status !== 429 && response.status < 500) throw error;
          options.onError?.(error);
          const after = Number(response.headers.get('retry-after'));
          if (Number.isFinite(after) && after > 0) wait = after * 1000;
        }
      } catch (error) {
        if (stop.signal.aborted) return;
        if ((error as ApiError).name === 'ApiError') {
          options.onError?.(error);
          throw error;
        }
        options.onError?.(error);
      }
      if (!stop.signal.aborted) await sleep(wait, stop.signal);
    }
  })();
  // The caller may only use `close`: an unhandled rejection is not its problem.
  done.catch(() => undefined);

  return {
    get lastEventId() {
      return lastEventId;
    },
    close: () => stop.abort(),
    done,
  };
}
