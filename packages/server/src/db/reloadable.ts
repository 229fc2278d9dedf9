import type { PGlite } from '@electric-sql/pglite';
import type { Kysely } from 'kysely';

type Client = Pick<PGlite, 'query' | 'close'>;

export interface Reloadable {
  /** The client Kysely talks to: it forwards to the current instance. */
  client: PGlite;
  /** Swaps the current instance for a fresh copy of the dump. */
  reload(): Promise<void>;
  /** Keeps a fresh copy loaded in advance, so that a reload is a swap (costs one more database in memory). */
  keepSpare(): void;
}

/**
 * An embedded database that can be put back to where it started: the client Kysely talks to
 * forwards to the current PGlite instance, and `reload` swaps that instance for a fresh one
 * loaded from the dump the database was opened from. Kysely's PGlite driver serializes every
 * query and transaction on its one connection, and a reload holds that connection, so it never
 * cuts a transaction in half.
 */
export function reloadableClient(open: () => PGlite): Reloadable {
  let current: Client = open();
  let spare: Promise<PGlite> | null = null;
  let warm = false;
  const prepare = async () => {
    const next = open();
    await next.waitReady;
    return next;
  };
  return {
    client: {
      query: (...args: Parameters<Client['query']>) => current.query(...args),
      close: async () => {
        await current.close();
        if (spare) await (await spare).close();
      },
    } as unknown as PGlite,
    async reload() {
      const next = await (spare ?? prepare());
      spare = warm ? prepare() : null;
      const previous = current;
      current = next;
      await previous.close();
    },
    keepSpare() {
      warm = true;
      spare ??= prepare();
    },
  };
}

// Kept on the Kysely instance itself (not in a WeakMap) so that wrappers forwarding property reads,
// such as a proxy switching between databases, still reach it.
const RELOADABLE = Symbol('reloadable');
const reloadableOf = (db: Kysely<any>) => (db as unknown as { [RELOADABLE]?: Reloadable })[RELOADABLE];

export function registerReload(db: Kysely<any>, reloadable: Reloadable): void {
  Object.defineProperty(db, RELOADABLE, { value: reloadable });
}

/** Prepares fast reloads of a database opened from a dump (see `Reloadable.keepSpare`). */
export function keepSpareCopy(db: Kysely<any>): void {
  reloadableOf(db)?.keepSpare();
}

/** Puts a database opened from a dump back to that dump; false when this database cannot be reloaded. */
export async function reloadDatabase(db: Kysely<any>): Promise<boolean> {
  const reloadable = reloadableOf(db);
  if (!reloadable) return false;
  await db.connection().execute(() => reloadable.reload());
  return true;
}
