import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis client that fails fast instead of queueing while Redis is unreachable (every caller
 * has an in-process fallback), bounds every command, and reconnects on its own, forever.
 * `onError` hears about each lost connection once (ioredis repeats the error on every retry).
 */
export function createRedis(url: string, onError: (error: Error) => void, options: RedisOptions = {}): Redis {
  const client = new Redis(url, {
    connectTimeout: 2000,
    commandTimeout: 1000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...options,
  });
  let reported = false;
  client.on('error', (error: Error) => {
    if (!reported) onError(error);
    reported = true;
  });
  client.on('ready', () => {
    reported = false;
  });
  return client;
}

/** Waits until the client is connected, at most `ms`; Redis being down does not stop the start. */
export async function untilReady(client: Redis, ms = 2000): Promise<boolean> {
  if (client.status === 'ready') return true;
  return new Promise<boolean>((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    client.on('ready', onReady);
  });
}
