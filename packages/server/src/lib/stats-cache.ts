import { type CompiledQuery, sql, type Kysely } from 'kysely';
import { shareResult } from './shared-results.js';
import { databaseMemory } from './database-memory.js';
import { metrics } from './metrics.js';

/** How long a computed statistics answer may be reused while its tables have not changed. */
export const STATS_TTL_MS = 10_000;
const MAX_ENTRIES = 500;

/** Tables with a change counter (`<table>_change_seq`, migrations 0004, 0007 and 0011). */
export type CountedTable =
  | 'transports'
  | 'complaints'
  | 'forum_topics'
  | 'forum_messages'
  | 'forum_reports'
  | 'categories'
  | 'actors'
  | 'organizations'
  | 'users';

/**
 * What a team is made of: the organization tree and the users' organizations. Every cached answer
 * depends on them (a team manager's answers are computed over their subtree and its members).
 */
const TEAM_TABLES: CountedTable[] = ['organizations', 'users'];

/**
 * A short cache for statistics read from some tables, invalidated by the tables' change counters
 * (sequences advanced by every writing statement that touches a column the statistics read): an
 * entry is reused only while every counter is unchanged and for at most STATS_TTL_MS; reading the
 * counters costs one trivial query. The team tables' counters are always read (TEAM_TABLES). Concurrent requests for the same key share one computation; each database handle has its own entries (lib/database-memory.ts).
 */
export function statsCache<T>(...tables: [CountedTable, ...CountedTable[]]) {
  // One map per database handle: apps on different databases in one process never share answers.
  const memory = databaseMemory<{ version: string; at: number; value: Promise<T> }>(MAX_ENTRIES);
  const counters = sql.join(
    [...new Set([...tables, ...TEAM_TABLES])].map(
      (table) => sql`(select last_value::text || is_called::text from ${sql.table(`${table}_change_seq`)})`,
    ),
    sql` || ':' || `,
  );
  // Compiled once: the same text for every database of the API (PostgreSQL's dialect), no parameters.
  let read: CompiledQuery<{ v: string }> | undefined;
  return async (db: Kysely<any>, key: string, compute: () => Promise<T>): Promise<T> => {
    read ??= sql<{ v: string }>`select ${counters} as v`.compile(db);
    const { rows } = await db.executeQuery(read);
    const version = rows[0]?.v ?? '';
    const entries = memory.of(db);
    const hit = entries.get(key);
    if (hit && hit.version === version && Date.now() - hit.at < STATS_TTL_MS) {
      metrics.cache('statistics', true);
      return hit.value;
    }
    metrics.cache('statistics', false);
    // Every hit returns the same object: its answer's body is serialized once (lib/shared-results.ts).
    const value = compute().then(shareResult);
    memory.remember(entries, key, { version, at: Date.now(), value });
    value.catch(() => entries.delete(key));
    return value;
  };
}
