import type { components, operations, paths } from '@transport-ops/contract';
import createClient, { type Client } from 'openapi-fetch';
import { bearerMiddleware } from './auth.js';
import { unwrap } from './errors.js';
import { memoryTokenStore, type TokenStore, type Tokens } from './tokens.js';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export { ApiError, unwrap, type ErrorCode, type ErrorDetail, type ErrorEnvelope } from './errors.js';
export { memoryTokenStore, webStorageTokenStore, type TokenStore, type Tokens } from './tokens.js';
export { bearerMiddleware, type BearerOptions } from './auth.js';
export { paginate, type Page } from './paginate.js';
export { toFormData } from './form-data.js';

export interface ClientOptions {
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
}

export type TransportOpsClient = Client<paths> & {
  /** Logs in, keeps the tokens, and returns the login result (tokens and user). */
  login(username: string, password: string): Promise<Schemas['LoginResult']>;
  /** Revokes the session on the server and forgets the tokens. */
  logout(): Promise<void>;
  /** The token store in use. */
  readonly tokens: TokenStore;
};

/** Serializes JSON bodies as JSON and passes FormData (uploads, see `toFormData`) through unchanged. */
function bodySerializer(body: unknown): string | FormData {
  return body instanceof FormData ? body : JSON.stringify(body);
}

export function createTransportOpsClient(options: ClientOptions): TransportOpsClient {
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const store = options.tokenStore ?? memoryTokenStore();
  const auth = createClient<paths>({ baseUrl: options.authUrl ?? options.baseUrl, fetch: fetchImpl });
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: fetchImpl, bodySerializer });

  const refresh = async (refreshToken: string): Promise<string | null> => {
    const { data } = await auth.POST('/auth/refresh', { body: { refresh_token: refreshToken } });
    return data?.result.access_token ?? null;
  };
  api.use(bearerMiddleware({ store, refresh, fetch: fetchImpl, onSessionExpired: options.onSessionExpired }));

  const loggedOut = async () => store.set(null);
  return Object.assign(api, {
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
        await loggedOut();
      }
    },
  });
}
