/** The tokens the client holds between calls. */
export interface Tokens {
  accessToken: string;
  refreshToken: string | null;
}

/** Where the client keeps its tokens: memory by default, `localStorage` or your own storage in a browser app. */
export interface TokenStore {
  get(): Tokens | null | Promise<Tokens | null>;
  set(tokens: Tokens | null): void | Promise<void>;
}

export function memoryTokenStore(initial: Tokens | null = null): TokenStore {
  let tokens = initial;
  return {
    get: () => tokens,
    set: (next) => {
      tokens = next;
    },
  };
}

/** Keeps the tokens in `localStorage` (or another Storage) under one key. */
export function webStorageTokenStore(storage: Storage, key = 'transport-ops.tokens'): TokenStore {
  return {
    get() {
      const raw = storage.getItem(key);
      return raw ? (JSON.parse(raw) as Tokens) : null;
    },
    set(tokens) {
      if (tokens) storage.setItem(key, JSON.stringify(tokens));
      else storage.removeItem(key);
    },
  };
}
