import { EventEmitter } from 'node:events';
import { createRedis } from './redis.js';

/**
 * Fan-out of invalidations (revoked sessions, changed announcements) to every instance: through
 * Redis pub/sub when REDIS_URL is set, in-process otherwise (a single instance).
 */
export interface Bus {
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, listener: (message: string) => void): void;
  /**
   * Since when (ms since the epoch) this instance has heard every message published on the bus:
   * `Infinity` while it may be missing some (Redis unreachable or silent). A cache that relies on
   * the bus for its invalidations may trust only what it learnt at or after that time.
   */
  liveSince(): number;
  close(): Promise<void>;
}

export function memoryBus(): Bus {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return {
    async publish(channel, message) {
      events.emit(channel, message);
    },
    subscribe(channel, listener) {
      events.on(channel, listener);
    },
    // In-process: nothing published can be missed.
    liveSince: () => 0,
    async close() {
      events.removeAllListeners();
    },
  };
}

/** How often the Redis bus checks that its subscription still hears Redis, and how long a silence may last. */
export const BUS_HEARTBEAT_MS = 1000;
export const BUS_SILENCE_MS = 3000;
/** Messages kept while Redis cannot be reached, published once it can (older ones no longer matter). */
const MAX_UNSENT = 1000;

/**
 * The Redis bus never blocks the start and never fails a request: it connects in the background
 * and reconnects on its own (ioredis subscribes again to every channel). While Redis is
 * unreachable a message reaches this instance only, so every instance tells its caches when it
 * may have missed one (`liveSince`): from the moment its subscription connection closes, or
 * stays silent for BUS_SILENCE_MS (a frozen Redis or a lost network keeps the socket open; a PING
 * every BUS_HEARTBEAT_MS finds out), until it has subscribed again. A PING answered means every
 * message published before it was sent has been delivered (Redis answers a connection in order).
 */
export function redisBus(url: string, prefix: string, onError: (error: Error) => void = () => {}): Bus {
  const publisher = createRedis(url, onError);
  // Subscriptions made while Redis is down wait in the offline queue until it is back.
  const subscriber = createRedis(url, onError, { enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
  const events = new EventEmitter();
  events.setMaxListeners(0);
  subscriber.on('message', (channel: string, message: string) => events.emit(channel.slice(prefix.length), message));
  const subscribed = new Set<string>();

  let since = Number.POSITIVE_INFINITY;
  let heardAt = 0;
  let pinging = false;
  const down = () => {
    since = Number.POSITIVE_INFINITY;
  };
  subscriber.on('close', down);
  subscriber.on('reconnecting', down);
  subscriber.on('end', down);
  // Live again once every channel is subscribed (ioredis's own resubscription is queued before this).
  subscriber.on('ready', () => {
    const sentAt = Date.now();
    const channels = [...subscribed].map((c) => prefix + c);
    (channels.length > 0 ? subscriber.subscribe(...channels) : Promise.resolve()).then(
      () => {
        heardAt = sentAt;
        if (subscriber.status === 'ready' && since === Number.POSITIVE_INFINITY) since = Date.now();
      },
      () => {},
    );
  });
  const unsent: [string, string][] = [];
  publisher.on('ready', () => {
    for (const [channel, message] of unsent.splice(0)) publisher.publish(prefix + channel, message).catch(() => {});
  });
  const heartbeat = setInterval(() => {
    if (pinging || subscriber.status !== 'ready') return;
    pinging = true;
    const sentAt = Date.now();
    subscriber.ping().then(
      () => {
        pinging = false;
        heardAt = sentAt;
        // Back from a silence without a reconnection (a frozen Redis that thawed): live from now.
        if (since === Number.POSITIVE_INFINITY && subscriber.condition?.subscriber) since = Date.now();
      },
      () => {
        pinging = false;
      },
    );
  }, BUS_HEARTBEAT_MS);
  heartbeat.unref();

  return {
    async publish(channel, message) {
      try {
        // Delivered to this instance through the subscription as well, like every other one.
        await publisher.publish(prefix + channel, message);
      } catch {
        events.emit(channel, message);
        // Sent again once this instance reaches Redis: the others may still trust what it ended.
        if (unsent.length < MAX_UNSENT) unsent.push([channel, message]);
      }
    },
    subscribe(channel, listener) {
      events.on(channel, listener);
      if (!subscribed.has(channel)) {
        subscribed.add(channel);
        subscriber.subscribe(prefix + channel).catch(() => {}); // retried on reconnection
      }
    },
    liveSince() {
      if (since !== Number.POSITIVE_INFINITY && Date.now() - heardAt > BUS_SILENCE_MS) since = Number.POSITIVE_INFINITY;
      return since;
    },
    async close() {
      clearInterval(heartbeat);
      events.removeAllListeners();
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
