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

// @fastify/rate-limit's own stores (CommonJS, without type declarations).
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (c: boolean, e: boolean, cache?: number) => Store;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (c: boolean, e: boolean, redis: Redis, key: string) => Store;

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
