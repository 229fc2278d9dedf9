import type { Kysely } from 'kysely';
import pg from 'pg';
import { poolOf } from './connect.js';

const RECONNECT_MS = 1000;

/**
 * Listens for NOTIFY on `channel` over a connection of its own (LISTEN holds a session, so it
 * cannot share the pool's), opened with the pool's settings; reconnects after a lost connection
 * (the database restarting). Once it listens (first or again) it calls `onNotify` once without a
 * payload, for what was sent before. `onNotify` gets each notification's payload (the empty string when none was sent).
 * Returns null on the embedded PGlite (one process, nothing to hear from). `stop` closes it.
 */
export function listen(
  db: Kysely<any>,
  channel: string,
  onNotify: (payload?: string) => void,
  onError: (error: Error) => void,
): { stop(): Promise<void> } | null {
  const pool = poolOf(db);
  if (!pool) return null;
  let client: pg.Client | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const open = async () => {
    const c = new pg.Client(pool.options);
    client = c;
    let over = false;
    const retry = (error?: Error) => {
      if (over) return;
      over = true;
      if (error) onError(error);
      c.removeAllListeners();
      c.on('error', () => {});
      c.end().catch(() => {});
      if (client === c) client = null;
      if (!stopped) timer = setTimeout(() => void open(), RECONNECT_MS).unref();
    };
    c.on('error', retry);
    c.on('end', () => retry());
    c.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`listen ${pg.escapeIdentifier(channel)}`);
      // What was sent before this connection listened (at start, or while it was lost).
      onNotify();
    } catch (error) {
      retry(error as Error);
    }
  };
  void open();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      const c = client;
      client = null;
      c?.removeAllListeners();
      c?.on('error', () => {});
      await c?.end().catch(() => {});
    },
  };
}
