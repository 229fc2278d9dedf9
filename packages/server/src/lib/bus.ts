import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

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

export async function redisBus(url: string, prefix: string): Promise<Bus> {
  const publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  const subscriber = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await Promise.all([publisher.connect(), subscriber.connect()]);
  const events = new EventEmitter();
  events.setMaxListeners(0);
  subscriber.on('message', (channel: string, message: string) => events.emit(channel.slice(prefix.length), message));
  const subscribed = new Set<string>();
  return {
    async publish(channel, message) {
      // Delivered to this instance through the subscription as well, like every other one.
      await publisher.publish(prefix + channel, message);
    },
    subscribe(channel, listener) {
      events.on(channel, listener);
      if (!subscribed.has(channel)) {
        subscribed.add(channel);
        void subscriber.subscribe(prefix + channel);
      }
    },
    async close() {
      events.removeAllListeners();
      subscriber.disconnect();
      await publisher.quit();
    },
  };
}
