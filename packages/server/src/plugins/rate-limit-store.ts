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

/** What this instance last knew of a caller's count: from Redis, or counted here during an outage. */
interface Known {
  current: number;
  resetAt: number;
  /** Counted here while Redis was unreachable: Redis may be behind (or may have lost the key). */
  unsynced: boolean;
}

/** Callers remembered per store (the oldest forgotten first): a few MB at most. */
const MAX_KNOWN = 20_000;

/**
 * Increments a window counter, then raises it to `floor` when it is lower (the count this instance
 * reached while Redis was unreachable; 0 otherwise), keeping that count's own window. Returns the
 * count and its remaining milliseconds. The same keys and the same window semantics as
 * @fastify/rate-limit's Redis store (increment, expire with the first hit).
 */
const INCREMENT = `
  local current = redis.call('INCR', KEYS[1])
  if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
  local floor = tonumber(ARGV[2])
  if current < floor then
    redis.call('SET', KEYS[1], floor, 'PX', ARGV[3])
    current = floor
  end
  return {current, redis.call('PTTL', KEYS[1])}
`;

type CountingRedis = Redis & {
  rateLimitCount(key: string, windowMs: number, floor: number, floorTtlMs: number): Promise<[number, number]>;
};

/**
 * Counts in Redis (shared by every instance) and, whenever Redis fails or is unreachable, in this
 * process's memory, starting from the last count Redis gave for the caller: a quota does not
 * restart with an outage. When Redis answers again, the higher of its count and the one reached
 * here is kept, in Redis too (it may have restarted empty). The bound this gives is stated in the
 * contract's 429 description: one instance keeps a quota exactly; N instances counting apart
 * during an outage accept at most N times the rest of a quota. The window and key semantics are
 * those of @fastify/rate-limit's own Redis store (`continueExceeding` and `exponentialBackoff`
 * are not used by this API).
 */
export function fallbackStore(redis: Redis, nameSpace: string) {
  const client = redis as CountingRedis;
  if (!client.rateLimitCount) client.defineCommand('rateLimitCount', { numberOfKeys: 1, lua: INCREMENT });

  return class FallbackStore implements Store {
    readonly known = new Map<string, Known>();

    constructor(
      _options: StoreOptions,
      readonly prefix: string = nameSpace,
    ) {}

    remember(key: string, known: Known) {
      this.known.delete(key);
      this.known.set(key, known);
      if (this.known.size > MAX_KNOWN) this.known.delete(this.known.keys().next().value!);
    }

    /** One more request counted here: from the last known count while its window lasts, else a new window. */
    countHere(key: string, timeWindow: number): Counter {
      const now = Date.now();
      const last = this.known.get(key);
      const known =
        last && last.resetAt > now
          ? { current: last.current + 1, resetAt: last.resetAt, unsynced: true }
          : { current: 1, resetAt: now + timeWindow, unsynced: true };
      this.remember(key, known);
      return { current: known.current, ttl: known.resetAt - now };
    }

    incr(key: string, cb: Callback, timeWindow: number, _max: number) {
      const now = Date.now();
      const last = this.known.get(key);
      const pending = last?.unsynced && last.resetAt > now ? last : null;
      const floor = pending ? pending.current + 1 : 0;
      client.rateLimitCount(this.prefix + key, timeWindow, floor, pending ? pending.resetAt - now : timeWindow).then(
        ([current, ttl]) => {
          const left = ttl > 0 ? ttl : timeWindow;
          this.remember(key, { current, resetAt: Date.now() + left, unsynced: false });
          cb(null, { current, ttl: left });
        },
        () => cb(null, this.countHere(key, timeWindow)),
      );
    }

    /** A peek without counting: Redis's count, or what this instance knows while Redis is unreachable. */
    read(key: string, cb: Callback, _timeWindow: number, _max: number) {
      const here = () => {
        const known = this.known.get(key);
        const now = Date.now();
        return known && known.resetAt > now ? { current: known.current, ttl: known.resetAt - now } : { current: 0, ttl: 0 };
      };
      Promise.all([client.get(this.prefix + key), client.pttl(this.prefix + key)]).then(
        ([current, ttl]) => {
          const local = here();
          // Counts of an outage not yet written back to Redis are part of the caller's count.
          const shared = current === null ? { current: 0, ttl: 0 } : { current: Number(current), ttl: Math.max(ttl, 0) };
          cb(null, this.known.get(key)?.unsynced && local.current > shared.current ? local : shared);
        },
        () => cb(null, here()),
      );
    }

    child(routeOptions: StoreOptions & { routeInfo: { method: string; url: string } }) {
      return new FallbackStore(routeOptions, `${this.prefix}${routeOptions.routeInfo.method}${routeOptions.routeInfo.url}-`);
    }
  };
}
