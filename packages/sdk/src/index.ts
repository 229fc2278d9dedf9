import createClient, { type Client } from 'openapi-fetch';
import { bearerMiddleware } from './auth.js';
import { splitArgs, type CallOptions, type ItemOf, type OperationMethods, type PagedOperationId, type ParamsOf } from './call.js';
import { apiError, unwrap } from './errors.js';
import { etagCache } from './etag-cache.js';
import { toFormData } from './form-data.js';
import { operationTable } from './operations.js';
import type { components, operations, paths } from './schema.js';
import { memoryTokenStore, type TokenStore, type Tokens } from './tokens.js';
import { resilientFetch, type RequestSettings, type RetryOptions } from './transport.js';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export {
  ApiError,
  NetworkError,
  TimeoutError,
  TransportOpsError,
  unwrap,
  type ErrorCode,
  type ErrorDetail,
  type ErrorEnvelope,
} from './errors.js';
export { memoryTokenStore, webStorageTokenStore, type TokenStore, type Tokens } from './tokens.js';
export { bearerMiddleware, type BearerOptions } from './auth.js';
export { paginate, type Page } from './paginate.js';
import { paginate as paginatePages, type Page } from './paginate.js';
export { etagCache } from './etag-cache.js';
export { toFormData, type UploadFile } from './form-data.js';
export { operationTable } from './operations.js';
export type { BodyOf, CallArgs, CallOptions, ItemOf, OperationId, OperationMethods, PagedOperationId, ParamsOf, ResultOf } from './call.js';
export type { RequestSettings, RetryOptions } from './transport.js';

export interface ClientOptions extends RetryOptions {
  /** Where the API is, e.g. `https://api.transport-ops.example`. */
  baseUrl: string;
  /** Where the authentication operations are, when hosted separately (`{auth_url}`); defaults to baseUrl. */
  authUrl?: string;
  /** Token storage; memory by default. */
  tokenStore?: TokenStore;
  /** A fetch implementation (tests, server-side rendering); `globalThis.fetch` by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Called when the session cannot be renewed any more: send the user to the login page. */
  onSessionExpired?: () => void;
  /** Timeout of each attempt in ms (0: none). Default 30 000; per call: `timeoutMs` in the call's options. */
  timeoutMs?: number;
  /**
   * Remember GET answers that carry an ETag and revalidate them with `If-None-Match` (a 304 is
   * answered from memory and costs no quota): `true` for the last 200, or how many. Off by default.
   */
  etagCache?: boolean | number;
}

export type TransportOpsClient = Client<paths> & {
  /** Every operation by its operationId: `await api.op.getTransportById({ id: 42 })` resolves to the result or throws. */
  readonly op: OperationMethods;
  /**
   * Every item of a paged list operation, page after page: `for await (const t of api.paginate('listTransports', { status: 'PENDING' }))`.
   * Lists that hand out `meta.next_cursor` are followed by their cursor (no 10,000-row offset cap).
   */
  paginate<K extends PagedOperationId>(
    operationId: K,
    params?: Omit<ParamsOf<K>, 'page'>,
    options?: CallOptions,
  ): AsyncGenerator<ItemOf<K>>;
  /** Logs in, keeps the tokens, and returns the login result (tokens and user). */
  login(username: string, password: string): Promise<Schemas['LoginResult']>;
  /** Revokes the session on the server and forgets the tokens. */
  logout(): Promise<void>;
  /** The token store in use. */
  readonly tokens: TokenStore;
};

/** Serializes JSON bodies as JSON and passes FormData through unchanged. */
function bodySerializer(body: unknown): string | FormData {
  return body instanceof FormData ? body : JSON.stringify(body);
}

type Init = {
  body?: unknown;
  fetch?: (request: Request) => Promise<Response>;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  ifMatch?: string;
} & RequestSettings &
  Record<string, unknown>;
const METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'] as const;
const withFlag = (flag: number) =>
  new Set(
    Object.values(operationTable)
      .filter(([, , flags]) => flags & flag)
      .map(([method, path]) => `${method} ${path}`),
  );
const multipart = withFlag(4);
/** POSTs that take an `Idempotency-Key`: each call gets one, so the call's retries are safe. */
const keyed = withFlag(16);
const newKey = () => crypto.randomUUID();

export function createTransportOpsClient(options: ClientOptions): TransportOpsClient {
  const { timeoutMs, retries, baseDelayMs, maxDelayMs } = options;
  const send = resilientFetch(options.fetch ?? ((request: Request) => globalThis.fetch(request)), {
    timeoutMs,
    retries,
    baseDelayMs,
    maxDelayMs,
  });
  const cache = options.etagCache ? etagCache((request) => send(request), options.etagCache === true ? 200 : options.etagCache) : null;
  const fetchImpl = cache ?? ((request: Request) => send(request));
  const store = options.tokenStore ?? memoryTokenStore();
  const auth = createClient<paths>({ baseUrl: options.authUrl ?? options.baseUrl, fetch: fetchImpl });
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: fetchImpl, bodySerializer });

  // Per-call settings (`timeoutMs`, `retries`), idempotency keys, `If-Match`, and plain-object bodies of upload operations.
  for (const method of METHODS) {
    const original = api[method] as (path: string, init?: Init) => Promise<unknown>;
    (api as unknown as Record<string, unknown>)[method] = (path: string, given?: Init) => {
      let init = given;
      const key = keyed.has(`${method} ${path}`);
      if (key || init?.ifMatch) {
        const headers: Record<string, string> = { ...init?.headers };
        if (key) headers['idempotency-key'] ??= init?.idempotencyKey ?? newKey();
        if (init?.ifMatch) headers['if-match'] = init.ifMatch;
        init = { ...init, headers };
      }
      if (!init) return original(path, init);
      const { timeoutMs: t, retries: r, idempotencyKey: _k, ifMatch: _m, ...rest } = init;
      const body = multipart.has(`${method} ${path}`) && rest.body && !(rest.body instanceof FormData) ? toFormData(rest.body) : rest.body;
      const perCall =
        t !== undefined || r !== undefined ? { fetch: (request: Request) => send(request, { timeoutMs: t, retries: r }) } : {};
      return original(path, { ...rest, ...(body === undefined ? {} : { body }), ...perCall });
    };
  }

  const refresh = async (refreshToken: string): Promise<string | null> => {
    const { data } = await auth.POST('/auth/refresh', { body: { refresh_token: refreshToken } });
    return data?.result.access_token ?? null;
  };
  api.use(bearerMiddleware({ store, refresh, fetch: fetchImpl, onSessionExpired: options.onSessionExpired }));

  const op = Object.fromEntries(
    Object.entries(operationTable).map(([id, [method, path, flags]]) => [
      id,
      async (...args: unknown[]) => {
        const { params, body, options: o } = splitArgs(path, flags, args);
        const call = (
          api as unknown as Record<string, (path: string, init: Init) => Promise<{ data?: unknown; error?: unknown; response: Response }>>
        )[method]!;
        const file = (flags & 8) !== 0;
        const res = await call(path, {
          params,
          body,
          headers: o.headers,
          idempotencyKey: o.idempotencyKey,
          ifMatch: o.ifMatch,
          signal: o.signal,
          timeoutMs: o.timeoutMs,
          retries: o.retries,
          parseAs: file ? 'blob' : 'json',
        });
        if (!file) return unwrap(res as Parameters<typeof unwrap>[0]);
        if (!res.response.ok) throw apiError(res.response, res.error);
        return res.data;
      },
    ]),
  ) as unknown as OperationMethods;

  async function* paginate(operationId: string, params: object = {}, callOptions?: CallOptions) {
    const list = (op as unknown as Record<string, (p: object, o?: CallOptions) => Promise<Page<unknown>>>)[operationId]!;
    yield* paginatePages((page, cursor) => list(cursor ? { ...params, cursor } : { ...params, page }, callOptions));
  }

  return Object.assign(api, {
    op,
    paginate: paginate as TransportOpsClient['paginate'],
    tokens: store,
    async login(username: string, password: string) {
      const result = unwrap(await auth.POST('/auth/login', { body: { username, password } }));
      const tokens: Tokens = { accessToken: result.access_token, refreshToken: result.refresh_token };
      await store.set(tokens);
      return result;
    },
    async logout() {
      const tokens = await store.get();
      try {
        if (!tokens) return;
        const { response, error } = await auth.POST('/auth/logout', { headers: { authorization: `Bearer ${tokens.accessToken}` } });
        // An already revoked or expired session (401) is logged out all the same.
        if (!response.ok && response.status !== 401) unwrap({ error, response });
      } finally {
        await store.set(null);
        cache?.clear();
      }
    },
  });
}
