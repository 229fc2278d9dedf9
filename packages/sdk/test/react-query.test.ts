import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { createTransportOpsClient, memoryTokenStore } from '../src/index.js';
import { createQueryHooks, queryClientDefaults } from '../src/react-query.js';

// The hooks' fetching (the same query options `useQuery` uses) through the SDK's client, without React.
const envelope = (status: number, body: object, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const page = { data: [{ id: 7, loadingNumber: 'trp-7' }], meta: { total: 1 } };

function setup(...answers: Response[]) {
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request);
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next;
  };
  const tokens = memoryTokenStore();
  const api = createTransportOpsClient({ baseUrl: 'http://api.test', fetch, tokenStore: tokens, baseDelayMs: 1 });
  const queries = new QueryClient({ defaultOptions: queryClientDefaults });
  return { sent, tokens, hooks: createQueryHooks(api), queries };
}

describe('createQueryHooks (@transport-ops/sdk/react-query)', () => {
  it("fetches through the SDK's client: bearer token, request id, its retry after a 503, the envelope as data", async () => {
    const { sent, tokens, hooks, queries } = setup(
      envelope(
        503,
        { success: false, message: 'busy', result: null, errors: { code: 'SERVICE_UNAVAILABLE' }, except: null },
        { 'retry-after': '0' },
      ),
      envelope(200, { success: true, message: 'ok', result: page, errors: null, except: null }),
    );
    await tokens.set({ accessToken: 'access-1', refreshToken: 'refresh-1' });
    const options = hooks.queryOptions('get', '/trade/transports', { params: { query: { limit: 5 } } });
    expect(options.queryKey).toEqual(['get', '/trade/transports', { params: { query: { limit: 5 } } }]);

    const data = await queries.fetchQuery(options);
    expect(data.result).toEqual(page);
    expect(sent.map((r) => [r.method, r.url, r.headers.get('authorization')])).toEqual([
      ['GET', 'http://api.test/trade/transports?limit=5', 'Bearer access-1'],
      ['GET', 'http://api.test/trade/transports?limit=5', 'Bearer access-1'],
    ]);
    expect(sent[1]!.headers.get('x-request-id')).toBe(sent[0]!.headers.get('x-request-id'));
  });

  it('fails a query with the error envelope, once (no retry by TanStack Query on top of the SDK)', async () => {
    const refused = {
      success: false,
      message: 'Transport not found',
      result: null,
      errors: { code: 'TRANSPORT_NOT_FOUND', transportId: 9 },
      except: null,
    };
    const { sent, hooks, queries } = setup(envelope(404, refused));
    const error = await queries
      .fetchQuery(hooks.queryOptions('get', '/trade/transports/{id}', { params: { path: { id: 9 } } }))
      .catch((e: unknown) => e);
    expect(error).toEqual(refused);
    expect(sent).toHaveLength(1);
  });
});
