import { NetworkError, TimeoutError } from './errors.js';

export interface RetryOptions {
  /** Further attempts after the first (0 disables retries). Default 2. */
  retries?: number;
  /** First backoff delay in ms, doubled each attempt, with jitter. Default 300. */
  baseDelayMs?: number;
  /** Longest wait between attempts, including a server's `Retry-After`; a longer `Retry-After` is not waited for. Default 30 000. */
  maxDelayMs?: number;
}

export interface RequestSettings extends RetryOptions {
  /** Per attempt, in ms (0: none). Default 30 000. */
  timeoutMs?: number;
}

type Fetch = (request: Request) => Promise<Response>;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const newRequestId = () =>
  typeof crypto !== 'undefined' && 'randomUUID' in crypto
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/**
 * Wraps fetch with what every call needs: an `x-request-id` (kept across attempts, carried by every
 * error), a timeout per attempt, and retries with exponential backoff. Network failures and timeouts
 * are retried for idempotent methods, and for a POST carrying an `Idempotency-Key` (the server runs
 * it once per key and replays its answer), never for another POST (it may have been processed);
 * 429 and 503 are retried for every method, after the server's `Retry-After` when it sends one (the
 * server did not process the request), and so is a keyed POST's 409 with `Retry-After` (the first
 * request with the key is still running: the retry gets its answer). Failures without an answer
 * become NetworkError or TimeoutError.
 */
export function resilientFetch(fetchImpl: Fetch, defaults: RequestSettings = {}) {
  return async (request: Request, settings: RequestSettings = {}): Promise<Response> => {
    const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
    const { retries = 2, baseDelayMs = 300, maxDelayMs = 30_000, timeoutMs = 30_000 } = { ...defaults, ...given };
    if (!request.headers.has('x-request-id')) request.headers.set('x-request-id', newRequestId());
    const requestId = request.headers.get('x-request-id')!;
    const keyed = request.headers.has('idempotency-key');
    const idempotent = keyed || IDEMPOTENT.has(request.method);
    const backoff = (attempt: number) => Math.min(maxDelayMs, baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2));

    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= retries;
      // A controller of our own, held until the attempt ends: signals combined with AbortSignal.any
      // are only weakly held and may be collected mid-request on Node 20.
      const controller = new AbortController();
      const cancel = () => controller.abort(request.signal.reason);
      request.signal.addEventListener('abort', cancel, { once: true });
      let timedOut = false;
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              timedOut = true;
              controller.abort(new DOMException('timeout', 'TimeoutError'));
            }, timeoutMs)
          : undefined;
      let response: Response;
      try {
        response = await fetchImpl(new Request(last ? request : request.clone(), { signal: controller.signal }));
      } catch (error) {
        if (request.signal.aborted) throw new NetworkError('The request was aborted', requestId, request.signal.reason ?? error);
        const failure = timedOut ? new TimeoutError(timeoutMs, requestId, error) : new NetworkError(errorMessage(error), requestId, error);
        if (last || !idempotent) throw failure;
        await sleep(backoff(attempt));
        continue;
      } finally {
        clearTimeout(timer);
        request.signal.removeEventListener('abort', cancel);
      }
      const retryable =
        response.status === 429 ||
        response.status === 503 ||
        (idempotent && (response.status === 502 || response.status === 504)) ||
        (keyed && response.status === 409 && response.headers.has('retry-after'));
      if (last || !retryable) return response;
      const wait = retryAfterMs(response) ?? backoff(attempt);
      if (wait > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `Network failure: ${error.message}` : 'Network failure';
}
