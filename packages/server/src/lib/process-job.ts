import type { FastifyInstance } from 'fastify';

/**
 * A job of the process (the outbox delivery, the sweep of old uploads): the returned function runs
 * one round at a time (a call during a round waits for it, then runs its own round). When
 * `periodMs` is above 0, `background` is called every period from the moment the app is ready
 * (skipped while a round is in flight; the timer does not keep the process alive) until it
 * closes; closing waits for the round in flight, then calls `closed`. `background` handles its
 * own errors.
 */
export function processJob<A extends unknown[], T>(
  app: FastifyInstance,
  work: (...args: A) => Promise<T>,
  schedule: {
    periodMs: number;
    background: (run: (...args: A) => Promise<T>) => Promise<unknown>;
    closed?: () => void;
  },
): (...args: A) => Promise<T> {
  const { periodMs, background, closed } = schedule;
  let inFlight: Promise<T> | null = null;
  const run = async (...args: A): Promise<T> => {
    while (inFlight) await inFlight.catch(() => undefined);
    inFlight = work(...args);
    try {
      return await inFlight;
    } finally {
      inFlight = null;
    }
  };
  let timer: NodeJS.Timeout | null = null;
  app.addHook('onReady', async () => {
    if (periodMs === 0) return;
    timer = setInterval(() => {
      if (!inFlight) background(run).catch(() => undefined);
    }, periodMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await inFlight?.catch(() => undefined);
    closed?.();
  });
  return run;
}
