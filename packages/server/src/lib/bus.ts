import { EventEmitter } from 'node:events';
import { createRedis } from './redis.js';

/**
 * Fan-out of invalidations (revoked sessions, changed announcements) to every instance: through
 * Redis pub/sub when REDIS_URL is set, in-process otherwise (a single instance).
 */
export interface Bus {
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, listener: (message: string) => void): void;
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
    async close() {
      events.removeAllListeners();
    },
  };
}

/**
 * The Redis bus never blocks the start and never fails a request: it connects in the background
 * and reconnects on its own (ioredis subscribes again to every channel). While Redis is
 * unreachable a message reaches this instance only; the others catch up through the short trust
 * windows of their caches (sessions 30 s, announcements their TTL).
 */
export function redisBus(url: string, prefix: string, onError: (error: Error) => void = () => {}): Bus {
  const publisher = createRedis(url, onError);
  // Subscriptions made while Redis is down wait in the offline queue until it is back.
  const subscriber = createRedis(url, onError, { enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
  const events = new EventEmitter();
  events.setMaxListeners(0);
  subscriber.on('message', (channel: string, message: string) => events.emit(channel.slice(prefix.length), message));
  const subscribed = new Set<string>();
  return {
    async publish(channel, message) {
      try {
        // Delivered to this instance through the subscription as well, like every other one.
        await publisher.publish(prefix + channel, message);
      } catch {
        events.emit(channel, message);
      }
    },
    subscribe(channel, listener) {
      events.on(channel, listener);
      if (!subscribed.has(channel)) {
        subscribed.add(channel);
        subscriber.subscribe(prefix + channel).catch(() => {}); // retried on reconnection
      }
    },
    async close() {
      events.removeAllListeners();
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
