import { describe, expect, it } from 'vitest';
import { ApiError, createTransportOpsClient, NetworkError, TimeoutError, TransportOpsError } from '../src/index.js';

const envelope = (status: number, body: object, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const ok = (result: unknown) => envelope(200, { success: true, message: 'ok', result, errors: null, except: null });
const failure = (status: number, errors: unknown, headers: Record<string, string> = {}) =>
  envelope(status, { success: false, message: `failed ${status}`, result: null, errors, except: null }, headers);

/** A fetch answering from a script of responses (or thrown errors), recording what was sent. */
function scripted(...answers: (Response | Error | ((request: Request) => Promise<Response>))[]) {
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request);
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(request) : next;
  };
  return { sent, fetch };
}
const client = (fetch: (r: Request) => Promise<Response>, extra = {}) =>
  createTransportOpsClient({ baseUrl: 'http://api.test', fetch, baseDelayMs: 1, ...extra });

describe('errors', () => {
  it('gives an ApiError the status, code, context and the request id the call was sent with', async () => {
    const { sent, fetch } = scripted((r) =>
      Promise.resolve(failure(404, { code: 'TRANSPORT_NOT_FOUND', transportId: 7 }, { 'x-request-id': r.headers.get('x-request-id')! })),
    );
    const error = await client(fetch)
      .op.getTransportById({ id: 7 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(TransportOpsError);
    const apiError = error as ApiError;
    expect(apiError).toMatchObject({ status: 404, code: 'TRANSPORT_NOT_FOUND', message: 'failed 404' });
    expect(apiError.is('TRANSPORT_NOT_FOUND') && apiError.detail.transportId).toBe(7);
    expect(apiError.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(apiError.requestId).toBe(sent[0]!.headers.get('x-request-id'));
  });

  it('turns a failure without an answer into a NetworkError, in the path form as in the concise form', async () => {
    const { fetch } = scripted(new TypeError('fetch failed'), new TypeError('fetch failed'));
    const api = client(fetch, { retries: 0 });
    const viaPath = await api.GET('/health').catch((e: unknown) => e);
    expect(viaPath).toBeInstanceOf(NetworkError);
    expect((viaPath as NetworkError).message).toBe('Network failure: fetch failed');
    expect((viaPath as NetworkError).requestId).toBeTruthy();
    expect((viaPath as NetworkError).cause).toBeInstanceOf(TypeError);
    await expect(api.op.getHealth()).rejects.toBeInstanceOf(NetworkError);
  });

  it('times out each attempt and throws a TimeoutError carrying the timeout and the request id', async () => {
    const hang = (r: Request) =>
      new Promise<Response>((_, reject) => r.signal.addEventListener('abort', () => reject(r.signal.reason), { once: true }));
    const { sent, fetch } = scripted(hang);
    const error = await client(fetch, { retries: 0 })
      .op.getHealth({ timeoutMs: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timeoutMs: 20, requestId: sent[0]!.headers.get('x-request-id'), message: 'No answer within 20 ms' });
  });
});

describe('retries', () => {
  it('retries an idempotent call after a network failure and a 503, keeping its request id', async () => {
    const { sent, fetch } = scripted(new TypeError('socket hang up'), failure(503, ['database did not answer']), ok({ status: 'ok' }));
    const result = await client(fetch).op.getHealth();
    expect(result).toEqual({ status: 'ok' });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.headers.get('x-request-id'))).size).toBe(1);
  });

  it('never repeats a POST without an idempotency key after a network failure: it may have been processed', async () => {
    const { sent, fetch } = scripted(new TypeError('socket hang up'), ok({}));
    await expect(client(fetch).op.logout()).rejects.toBeInstanceOf(NetworkError);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.has('idempotency-key')).toBe(false);
  });

  it('gives every POST that takes one a new Idempotency-Key, and repeats it under the same key after a network failure', async () => {
    const { sent, fetch } = scripted(new TypeError('socket hang up'), ok({ id: 1 }), ok({ id: 2 }));
    const api = client(fetch);
    expect(await api.op.createComplaint({ transportId: 1, label: 'Late' } as never)).toEqual({ id: 1 });
    expect(await api.op.createComplaint({ transportId: 1, label: 'Late' } as never)).toEqual({ id: 2 });
    const keys = sent.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('waits for a keyed POST still in flight (409 with Retry-After) and takes the replayed answer; a 409 without it is final', async () => {
    const inUse = failure(409, { code: 'IDEMPOTENCY_KEY_IN_USE', retryAfterSeconds: 0 }, { 'retry-after': '0' });
    const { sent, fetch } = scripted(inUse, ok({ id: 7 }), failure(409, { code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' }));
    const api = client(fetch);
    expect(await api.op.createTransport({} as never, { idempotencyKey: 'k-1' })).toEqual({ id: 7 });
    expect(sent.map((r) => r.headers.get('idempotency-key'))).toEqual(['k-1', 'k-1']);
    const unknown = await api.op.createTransport({} as never, { idempotencyKey: 'k-2' }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 409, code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' });
    expect(sent).toHaveLength(3);
  });

  it('sends If-Match from the ifMatch option, in the concise and the path form', async () => {
    const { sent, fetch } = scripted(ok({ id: 9 }), ok({ id: 9 }));
    const api = client(fetch);
    await api.op.updateTransport({ id: 9 }, { loadingPoint: 'Lyon' }, { ifMatch: '"abc"' });
    await api.PATCH('/trade/transports/{id}', { params: { path: { id: 9 } }, body: { loadingPoint: 'Lyon' }, ifMatch: '"def"' } as never);
    expect(sent.map((r) => r.headers.get('if-match'))).toEqual(['"abc"', '"def"']);
  });

  it('repeats any call answered 429, after the Retry-After the server asks for, with the same body', async () => {
    const waits: number[] = [];
    let last = 0;
    const { sent, fetch } = scripted(
      failure(429, { code: 'RATE_LIMITED', limit: 100, retryAfterSeconds: 0 }, { 'retry-after': '0' }),
      async (r) => ok({ echoed: await r.json() }),
    );
    const timed = async (r: Request) => {
      const now = Date.now();
      if (last) waits.push(now - last);
      last = now;
      return fetch(r);
    };
    const res = await client(timed).POST('/auth/login', { body: { username: 'agent', password: 'demo1234' } });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ result: { echoed: { username: 'agent', password: 'demo1234' } } });
    expect(sent).toHaveLength(2);
  });

  it('gives up after the configured attempts and answers the last response', async () => {
    const { sent, fetch } = scripted(failure(503, ['down']), failure(503, ['down']));
    const error = await client(fetch, { retries: 1 })
      .op.getHealth()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ApiError', status: 503, messages: ['down'] });
    expect(sent).toHaveLength(2);
  });

  it('does not wait for a Retry-After longer than the longest accepted delay', async () => {
    const { sent, fetch } = scripted(
      failure(429, { code: 'RATE_LIMITED', limit: 100, retryAfterSeconds: 3600 }, { 'retry-after': '3600' }),
    );
    const error = await client(fetch)
      .op.getHealth()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(sent).toHaveLength(1);
  });
});

describe('the concise form', () => {
  it('puts path parameters in the path and the others in the query', async () => {
    const { sent, fetch } = scripted(ok({ data: [], meta: { current_page: 2, total_pages: 2, total: 0, limit: 5 } }), ok({ id: 9 }));
    const api = client(fetch);
    await api.op.listTransports({ page: 2, limit: 5, status: 'PENDING' });
    await api.op.getTransportById({ id: 9 });
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET http://api.test/trade/transports?page=2&limit=5&status=PENDING',
      'GET http://api.test/trade/transports/9',
    ]);
  });

  it('iterates every page with for await', async () => {
    const page = (n: number, ids: number[]) =>
      ok({ data: ids.map((id) => ({ id })), meta: { current_page: n, total_pages: 3, total: 5, limit: 2 } });
    const { sent, fetch } = scripted(page(1, [1, 2]), page(2, [3, 4]), page(3, [5]));
    const ids: number[] = [];
    for await (const t of client(fetch).paginate('listTransports', { limit: 2 })) ids.push(t.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(sent.map((r) => new URL(r.url).search)).toEqual(['?limit=2&page=1', '?limit=2&page=2', '?limit=2&page=3']);
  });

  it('follows meta.next_cursor where the list hands one out, and stops at its null', async () => {
    const page = (ids: number[], next: string | null) =>
      ok({ data: ids.map((id) => ({ id })), meta: { current_page: 1, total_pages: 1, total: 5, limit: 2, next_cursor: next } });
    const { sent, fetch } = scripted(page([1, 2], 'c2'), page([3, 4], 'c3'), page([5], null));
    const ids: number[] = [];
    for await (const t of client(fetch).paginate('listTransports', { limit: 2 })) ids.push(t.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(sent.map((r) => new URL(r.url).search)).toEqual(['?limit=2&page=1', '?limit=2&cursor=c2', '?limit=2&cursor=c3']);
  });

  it('revalidates a remembered GET with If-None-Match and answers a 304 from memory when etagCache is on', async () => {
    const { sent, fetch } = scripted(
      envelope(200, { success: true, message: 'ok', result: { id: 3, v: 1 }, errors: null, except: null }, { etag: '"t1"' }),
      new Response(null, { status: 304, headers: { etag: '"t1"' } }),
    );
    const api = client(fetch, { etagCache: true });
    expect(await api.op.getTransportById({ id: 3 })).toEqual({ id: 3, v: 1 });
    expect(await api.op.getTransportById({ id: 3 })).toEqual({ id: 3, v: 1 });
    expect(sent.map((r) => r.headers.get('if-none-match'))).toEqual([null, '"t1"']);
  });

  it('sends upload operations as multipart built from a plain, typed object', async () => {
    const { sent, fetch } = scripted(async () =>
      envelope(201, { success: true, message: 'ok', result: { uploaded: [], errors: [] }, errors: null, except: null }),
    );
    const pdf = new File(['%PDF-1.4\n%%EOF\n'], 'licence.pdf', { type: 'application/pdf' });
    await client(fetch).POST('/trade/transports/upload', { body: { files: [pdf], transportId: 1042, documentType: 'DRIVING_LICENSE' } });
    const form = await sent[0]!.formData();
    expect(sent[0]!.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect((form.get('files') as File).name).toBe('licence.pdf');
    expect(form.get('transportId')).toBe('1042');
    expect(form.get('documentType')).toBe('DRIVING_LICENSE');
  });
});
