/**
 * What the process remembers about one database (statistics answers, totals, planner estimates),
 * kept per database handle in bounded maps: the oldest entry goes when a map is full.
 *
 * When the database behind a handle is replaced (the sandbox's reset reloads its dump; the tests
 * switch copies of one template under a shared app), the change counters that validate these
 * entries restart at the copy's values: an entry could match again and answer about other data.
 * `forgetDatabaseMemory` drops every map's entries for the handle.
 */
const every = new Set<WeakMap<object, Map<string, unknown>>>();

export interface DatabaseMemory<V> {
  /** The entries kept for a database handle (made on first use). */
  of(db: object): Map<string, V>;
  /** Stores an entry as the newest one of `entries`, dropping the oldest when there are `max`. */
  remember(entries: Map<string, V>, key: string, value: V): void;
}

export function databaseMemory<V>(max: number): DatabaseMemory<V> {
  const perDatabase = new WeakMap<object, Map<string, V>>();
  every.add(perDatabase as WeakMap<object, Map<string, unknown>>);
  return {
    of(db) {
      let entries = perDatabase.get(db);
      if (!entries) {
        entries = new Map();
        perDatabase.set(db, entries);
      }
      return entries;
    },
    remember(entries, key, value) {
      entries.delete(key);
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
    },
  };
}

/** Forgets everything remembered about the database behind `db` (see above). */
export function forgetDatabaseMemory(db: object): void {
  for (const perDatabase of every) perDatabase.delete(db);
}
