import { sql, type Kysely } from 'kysely';

/** How long a computed statistics answer may be reused while its table has not changed. */
export const STATS_TTL_MS = 10_000;
const MAX_ENTRIES = 500;

/**
 * A short cache for statistics of one table, invalidated by the table's change counter (a
 * sequence advanced by every writing statement, see migration 0004): an entry is reused only
 * while the counter is unchanged and for at most STATS_TTL_MS; reading the counter costs one
 * trivial query. Concurrent requests for the same key share one computation.
 */
export function statsCache<T>(table: 'transports' | 'complaints') {
  const entries = new Map<string, { version: string; at: number; value: Promise<T> }>();
  const counter = sql.table(`${table}_change_seq`);
  return async (db: Kysely<any>, key: string, compute: () => Promise<T>): Promise<T> => {
    const { rows } = await sql<{ v: string }>`select last_value::text || is_called::text as v from ${counter}`.execute(db);
    const version = rows[0]?.v ?? '';
    const hit = entries.get(key);
    if (hit && hit.version === version && Date.now() - hit.at < STATS_TTL_MS) return hit.value;
    const value = compute();
    entries.delete(key);
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(key, { version, at: Date.now(), value });
    value.catch(() => entries.delete(key));
    return value;
  };
}
