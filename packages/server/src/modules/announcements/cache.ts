import type { FastifyInstance } from 'fastify';
import type { Bus } from '../../lib/bus.js';
import { metrics } from '../../lib/metrics.js';

/**
 * The user-side announcement caches (lists, details, categories). Entries live in Redis when the
 * server has a client (shared by every instance), in a process-local Map otherwise or while Redis
 * fails. Invalidation never deletes entries: it bumps a generation number that is part of every
 * key (INCR in Redis, a counter in memory), so a load that started before a change stores its
 * result under the old generation, where nobody reads it. The bump is published on the bus so
 * every instance also drops its local entries.
 */
export interface AnnouncementCache {
  /** The value cached under `name`, or the one `load` computes, kept for at most `ttlMs`. */
  remember<T>(name: string, ttlMs: number, load: () => Promise<Loaded<T>>): Promise<T>;
  /** Makes every entry unreachable, on every instance. */
  invalidate(): Promise<void>;
}

/** A loaded value; `ttlMs` shortens the entry's lifetime (0 or less: do not cache it). */
export interface Loaded<T> {
  value: T;
  ttlMs?: number;
}

export const CHANGED_CHANNEL = 'announcements-changed';
const LOCAL_MAX_ENTRIES = 2000;

type Server = Pick<FastifyInstance, 'redis' | 'bus' | 'config' | 'log'>;

// One cache per application (keyed by its bus, shared by every encapsulation context).
const caches = new WeakMap<Bus, AnnouncementCache>();

export function announcementCache(server: Server): AnnouncementCache {
  let cache = caches.get(server.bus);
  if (!cache) {
    cache = createCache(server);
    caches.set(server.bus, cache);
  }
  return cache;
}

/** Called after every change to an announcement (and by modules that change what announcements show). */
export async function invalidateAnnouncementCaches(server: Server): Promise<void> {
  await announcementCache(server).invalidate();
}

function createCache(server: Server): AnnouncementCache {
  const { redis, bus, log } = server;
  const prefix = `${server.config.redisPrefix}announcements:`;
  const generationKey = `${prefix}generation`;

  const local = new Map<string, { expiresAt: number; value: unknown }>();
  let localGeneration = 0;
  const dropLocal = () => {
    localGeneration += 1;
    local.clear();
  };
  bus.subscribe(CHANGED_CHANNEL, dropLocal);

  function localGet(key: string): unknown {
    const entry = local.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > Date.now()) return entry.value;
    local.delete(key);
    return undefined;
  }

  function localSet(key: string, value: unknown, ttlMs: number): void {
    if (local.size >= LOCAL_MAX_ENTRIES) {
      const now = Date.now();
      for (const [k, e] of local) if (e.expiresAt <= now) local.delete(k);
      // Still full: drop the oldest entries (a Map iterates in insertion order).
      for (const k of local.keys()) {
        if (local.size < LOCAL_MAX_ENTRIES) break;
        local.delete(k);
      }
    }
    local.set(key, { expiresAt: Date.now() + ttlMs, value });
  }

  async function rememberLocal<T>(name: string, ttlMs: number, load: () => Promise<Loaded<T>>): Promise<T> {
    const key = `${localGeneration}:${name}`;
    const hit = localGet(key);
    metrics.cache('announcements', hit !== undefined);
    if (hit !== undefined) return hit as T;
    const loaded = await load();
    const ttl = Math.min(ttlMs, loaded.ttlMs ?? ttlMs);
    if (ttl > 0) localSet(key, loaded.value, ttl);
    return loaded.value;
  }

  return {
    async remember(name, ttlMs, load) {
      if (!redis) return rememberLocal(name, ttlMs, load);
      let key: string;
      try {
        const generation = (await redis.get(generationKey)) ?? '0';
        key = `${prefix}${generation}:${name}`;
        const hit = await redis.get(key);
        metrics.cache('announcements', hit !== null);
        if (hit !== null) return JSON.parse(hit);
      } catch (error) {
        log.warn({ err: error }, 'announcement cache: Redis unavailable, using the local cache');
        return rememberLocal(name, ttlMs, load);
      }
      const loaded = await load();
      const ttl = Math.min(ttlMs, loaded.ttlMs ?? ttlMs);
      if (ttl > 0) {
        try {
          await redis.set(key, JSON.stringify(loaded.value), 'PX', Math.ceil(ttl));
        } catch (error) {
          log.warn({ err: error }, 'announcement cache: could not store an entry in Redis');
        }
      }
      return loaded.value;
    },

    async invalidate() {
      dropLocal();
      let generation = String(localGeneration);
      if (redis) {
        try {
          generation = String(await redis.incr(generationKey));
        } catch (error) {
          log.error({ err: error }, 'announcement cache: could not bump the generation in Redis');
        }
      }
      try {
        await bus.publish(CHANGED_CHANNEL, generation);
      } catch (error) {
        log.error({ err: error }, 'announcement cache: could not publish the invalidation');
      }
    },
  };
}
