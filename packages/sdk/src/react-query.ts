/*
 * TanStack Query for the API (`@transport-ops/sdk/react-query`): `openapi-react-query` (the
 * openapi-ts project's hooks over openapi-fetch) bound to the SDK's client, so every query and
 * mutation goes through its bearer token and refresh, timeouts and retries, request ids and
 * per-call idempotency keys, and is typed from the contract's paths. A separate entry point with
 * optional peer dependencies (react, @tanstack/react-query, openapi-react-query): the main entry
 * does not carry them.
 */
import createClient, { type MethodResponse, type OpenapiQueryClient } from 'openapi-react-query';
import type { TransportOpsClient } from './index.js';
import type { paths } from './schema.js';

/** `useQuery`, `useSuspenseQuery`, `useInfiniteQuery`, `useMutation` and `queryOptions`, keyed `[method, path, init]`. */
export type QueryHooks = OpenapiQueryClient<paths>;
/** The success body (the envelope) of a hook: `MethodResponse<QueryHooks, 'get', '/trade/transports'>['result']`. */
export type { MethodResponse };

/**
 * The hooks of the API on `client`:
 * `const { useQuery, useMutation } = createQueryHooks(api)`, then
 * `useQuery('get', '/trade/transports', { params: { query: { limit: 20 } } })`. A hook's `data` is
 * the answer's envelope (`data.result`), its `error` the error envelope (a `NetworkError` or
 * `TimeoutError` when no answer came). The SDK retries on its own: give the QueryClient
 * `queryClientDefaults` so TanStack Query does not retry on top of it.
 */
export function createQueryHooks(client: TransportOpsClient): QueryHooks {
  return createClient<paths>(client);
}

/**
 * QueryClient defaults for the SDK's client: no retries by TanStack Query (the SDK retries what is
 * safe to retry, with backoff and `Retry-After`; a failed mutation is not retried with a new key).
 * `new QueryClient({ defaultOptions: queryClientDefaults })`.
 */
export const queryClientDefaults = { queries: { retry: false }, mutations: { retry: false } } as const;
