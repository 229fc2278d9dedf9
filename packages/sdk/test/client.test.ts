import { describe, expect, inject, it } from 'vitest';
import { ApiError, createTransportOpsClient, memoryTokenStore, paginate, toFormData, unwrap } from '../src/index.js';

const baseUrl = inject('mockUrl');

describe('the SDK against the mock of the contract', () => {
  it('logs in and keeps the tokens', async () => {
    const api = createTransportOpsClient({ baseUrl });
    const result = await api.login('agent', 'demo1234');
    expect(result.token_type).toBe('Bearer');
    expect(result.access_token.split('.')).toHaveLength(3);
    expect(await api.tokens.get()).toEqual({ accessToken: result.access_token, refreshToken: result.refresh_token });
  });

  it('reads a paginated list, and iterates all pages with paginate', async () => {
    const api = createTransportOpsClient({ baseUrl, tokenStore: memoryTokenStore({ accessToken: 'token', refreshToken: null }) });
    const page = unwrap(await api.GET('/trade/transports', { params: { query: { page: 1, limit: 10, status: 'PENDING' } } }));
    expect(page.meta.current_page).toBe(1);
    expect(page.data.length).toBeGreaterThan(0);
    const seen: string[] = [];
    for await (const transport of paginate((p) => api.GET('/trade/transports', { params: { query: { page: p } } }).then(unwrap))) {
      seen.push(transport.loadingNumber);
    }
    expect(seen.length).toBeGreaterThanOrEqual(page.data.length);
  });

  it('uploads documents as multipart form data', async () => {
    const api = createTransportOpsClient({ baseUrl, tokenStore: memoryTokenStore({ accessToken: 'token', refreshToken: null }) });
    const pdf = new File(['%PDF-1.4\n%%EOF\n'], 'licence.pdf', { type: 'application/pdf' });
    // A typed body: files are Blobs, a misspelled field or a missing one does not compile.
    const result = unwrap(
      await api.POST('/trade/transports/upload', { body: { files: [pdf], transportId: 1042, documentType: 'DRIVING_LICENSE' } }),
    );
    expect(result.uploaded.length).toBeGreaterThan(0);
    expect(Array.isArray(result.errors)).toBe(true);
    // A FormData built by hand is still accepted.
    const form = toFormData({ files: [{ blob: pdf, filename: 'licence.pdf' }], transportId: 1042, documentType: 'DRIVING_LICENSE' });
    const again = await api.op.uploadTransportDocuments(form as never);
    expect(again.uploaded.length).toBeGreaterThan(0);
  });

  it('calls operations by operationId, resolving to their result', async () => {
    const api = createTransportOpsClient({ baseUrl, tokenStore: memoryTokenStore({ accessToken: 'token', refreshToken: null }) });
    const transport = await api.op.getTransportById({ id: 1042 });
    expect(typeof transport.loadingNumber).toBe('string');
    const page = await api.op.listTransports({ page: 1, limit: 10, status: 'PENDING' });
    expect(page.meta.current_page).toBe(1);
    const seen: string[] = [];
    for await (const t of api.paginate('listTransports', { limit: 10 })) seen.push(t.loadingNumber);
    expect(seen.length).toBeGreaterThan(0);
    // File downloads resolve to a Blob.
    const certificate = await api.op.downloadTutorialCertificate({ id: 3 });
    expect(certificate).toBeInstanceOf(Blob);
    expect(certificate.size).toBeGreaterThan(0);
  });

  it('throws a typed error carrying the envelope and its code', async () => {
    const api = createTransportOpsClient({ baseUrl, tokenStore: memoryTokenStore({ accessToken: 'token', refreshToken: null }) });
    const response = await api.GET('/trade/transports/{id}', { params: { path: { id: 4242 } }, headers: { Prefer: 'code=404' } });
    const error = (() => {
      try {
        unwrap(response);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(404);
    expect(apiError.envelope.success).toBe(false);
    expect(apiError.is('TRANSPORT_NOT_FOUND') && apiError.detail.transportId).toBe(4242);
  });

  it('refreshes an expired access token once for concurrent calls and retries them', async () => {
    const stale = 'stale.access.token';
    let refreshes = 0;
    const sentTokens: string[] = [];
    // The mock cannot tell an expired token: calls carrying the stale one are answered with its 401 example.
    const fetchThroughMock = async (request: Request) => {
      if (new URL(request.url).pathname === '/auth/refresh') refreshes += 1;
      const authorization = request.headers.get('authorization');
      if (authorization) sentTokens.push(authorization);
      if (authorization === `Bearer ${stale}`) request.headers.set('Prefer', 'code=401');
      return fetch(request);
    };
    const api = createTransportOpsClient({
      baseUrl,
      fetch: fetchThroughMock,
      tokenStore: memoryTokenStore({ accessToken: stale, refreshToken: 'refresh.token.value' }),
    });
    const results = await Promise.all([
      api.GET('/auth/profile'),
      api.GET('/trade/transports', { params: { query: { page: 1 } } }),
      api.GET('/trade/forum/categories'),
    ]);
    expect(results.map((r) => r.response.status)).toEqual([200, 200, 200]);
    expect(refreshes).toBe(1);
    const fresh = (await api.tokens.get())!.accessToken;
    expect(fresh).not.toBe(stale);
    expect(sentTokens.filter((t) => t === `Bearer ${fresh}`)).toHaveLength(3);
  });

  it('reports an unrecoverable session once the refresh fails', async () => {
    let expired = 0;
    const api = createTransportOpsClient({
      baseUrl,
      tokenStore: memoryTokenStore({ accessToken: 'stale', refreshToken: null }),
      fetch: async (request) => {
        request.headers.set('Prefer', 'code=401');
        return fetch(request);
      },
      onSessionExpired: () => (expired += 1),
    });
    const { response } = await api.GET('/auth/profile');
    expect(response.status).toBe(401);
    expect(expired).toBe(1);
  });
});
