/**
 * PATCH @fastify/rate-limit: a store that counts in Redis and falls back to memory, built from the
 * plugin's own two stores.
 *
 * What it changes: the limiter's `store` option (public: a class with `incr`, `read`, `child`)
 * gets `FallbackStore`, which counts in the plugin's Redis store and, whenever Redis fails or is
 * unreachable, in the plugin's in-memory store: the limits keep applying per instance while
 * Redis is down, instead of every request failing or every limit being lifted.
 * Why a patch: the two stores are loaded from the package's files (`store/LocalStore.js`,
 * `store/RedisStore.js`), which its documentation does not offer, with the positional
 * constructor arguments its index passes them (`continueExceeding, exponentialBackoff, redis |
 * cache, key`).
 * Measured gain: not a speed patch; it keeps the limits during a Redis outage
 * (test/ops/redis-outage.test.ts) with the plugin's own counting code (its Lua script included).
 * Checked against: @fastify/rate-limit 11.x (`CHECKED`); test/patches/rate-limit-stores.test.ts
 * fails when the installed version leaves that range or when the stores or their constructors move.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

type Counter = { current: number; ttl: number };
type Callback = (error: Error | null, result: Counter | null) => void;
interface Store {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  read(key: string, cb: Callback, timeWindow: number, max: number): void;
  child(routeOptions: StoreOptions & { routeInfo: { method: string; url: string } }): Store;
}
interface StoreOptions {
  continueExceeding: boolean;
  exponentialBackoff: boolean;
}

/** The versions this patch was checked against: `from` inclusive, `below` exclusive. */
export const CHECKED = { package: '@fastify/rate-limit', from: '11.0.0', below: '12.0.0' } as const;

// @fastify/rate-limit's own stores (CommonJS, without type declarations, not documented).
const require = createRequire(import.meta.url);
export const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (c: boolean, e: boolean, cache?: number) => Store;
export const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  c: boolean,
  e: boolean,
  redis: Redis,
  key: string,
) => Store;

/**
 * Counts in Redis (shared by every instance) and, whenever Redis fails or is unreachable, in
 * this process's memory: the limits keep applying per instance while Redis is down, instead of
 * every request failing or every limit being lifted.
 */
export function fallbackStore(redis: Redis, nameSpace: string) {
  return class FallbackStore implements Store {
    readonly shared: Store;
    readonly local: Store;

    constructor(options: StoreOptions, shared?: Store, local?: Store) {
      this.shared = shared ?? new RedisStore(options.continueExceeding, options.exponentialBackoff, redis, nameSpace);
      this.local = local ?? new LocalStore(options.continueExceeding, options.exponentialBackoff);
    }

    incr(key: string, cb: Callback, timeWindow: number, max: number) {
      this.shared.incr(key, (error, result) => (error ? this.local.incr(key, cb, timeWindow, max) : cb(null, result)), timeWindow, max);
    }

    read(key: string, cb: Callback, timeWindow: number, max: number) {
      this.shared.read(key, (error, result) => (error ? this.local.read(key, cb, timeWindow, max) : cb(null, result)), timeWindow, max);
    }

    child(routeOptions: StoreOptions & { routeInfo: { method: string; url: string } }) {
      return new FallbackStore(routeOptions, this.shared.child(routeOptions), this.local.child(routeOptions));
    }
  };
}
