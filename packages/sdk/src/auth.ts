import type { Middleware } from 'openapi-fetch';
import type { TokenStore } from './tokens.js';

const NO_AUTH_PATHS = new Set(['/auth/login', '/auth/refresh', '/auth/validate']);

export interface BearerOptions {
  store: TokenStore;
  /** Obtains a new access token with the refresh token; resolves null when that is no longer possible. */
  refresh: (refreshToken: string) => Promise<string | null>;
  /** Sends a request outside the middleware chain (the retry). */
  fetch: (request: Request) => Promise<Response>;
  /** Called when a 401 cannot be recovered (no refresh token, or the refresh failed). */
  onSessionExpired?: () => void;
}

/**
 * Adds `Authorization: Bearer` to every call. On a 401 it refreshes the access token once and
 * retries the call; concurrent calls that fail together share that one refresh.
 */
export function bearerMiddleware(options: BearerOptions): Middleware {
  const originals = new Map<string, Request>();
  let refreshing: Promise<string | null> | null = null;

  const refreshOnce = (): Promise<string | null> => {
    refreshing ??= (async () => {
      try {
        const tokens = await options.store.get();
        if (!tokens?.refreshToken) return null;
        const accessToken = await options.refresh(tokens.refreshToken);
        if (accessToken) await options.store.set({ ...tokens, accessToken });
        return accessToken;
      } finally {
        // Let calls that fail later start a new refresh.
        queueMicrotask(() => (refreshing = null));
      }
    })();
    return refreshing;
  };

  return {
    async onRequest({ request, schemaPath, id }) {
      if (NO_AUTH_PATHS.has(schemaPath)) return undefined;
      const tokens = await options.store.get();
      if (tokens) request.headers.set('authorization', `Bearer ${tokens.accessToken}`);
      originals.set(id, request.clone());
      return request;
    },
    async onResponse({ response, id, request }) {
      const original = originals.get(id);
      originals.delete(id);
      if (response.status !== 401 || !original) return undefined;
      const sentWith = request.headers.get('authorization');
      const current = (await options.store.get())?.accessToken;
      // Another call may have refreshed already: retry with the newer token without refreshing again.
      const accessToken = current && `Bearer ${current}` !== sentWith ? current : await refreshOnce();
      if (!accessToken) {
        options.onSessionExpired?.();
        return undefined;
      }
      const retry = new Request(original, { headers: new Headers(original.headers) });
      retry.headers.set('authorization', `Bearer ${accessToken}`);
      return options.fetch(retry);
    },
    onError({ id }) {
      originals.delete(id);
    },
  };
}
