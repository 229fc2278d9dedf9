import { type Kysely, type RawBuilder, sql } from 'kysely';

/** The usage counters kept in a column of the counted row (migrations 0007, 0008, 0009), by their name in counter_deltas. */
export type ColumnCounter =
  | 'vehicle_types.transports_count'
  | 'complaint_types.complaints_count'
  | 'roles.users_count'
  | 'tags.topics_count'
  | 'tags.visible_topics_count'
  | 'actors.transports_count';

/**
 * A usage counter's current value: its column (folded) plus the changes appended since and not
 * folded yet (counter_deltas, migration 0016: writers append instead of updating the counted row, so
 * they never wait on each other). `alias` is the counted table's alias in the query. One index
 * range per row read, the appended changes of that row only.
 */
export function liveCount(counter: ColumnCounter, alias: string): RawBuilder<number> {
  const column = counter.slice(counter.indexOf('.') + 1);
  return sql<number>`(${sql.ref(`${alias}.${column}`)} + coalesce((select sum(d.delta) from counter_deltas d
    where d.counter = ${sql.lit(counter)} and d.id = ${sql.ref(`${alias}.id`)}), 0))::int`;
}

/**
 * Adds every appended statistics row and counter change to its folded total (fold_statistics(),
 * migration 0016) and returns how many folded rows changed. Reads give the same figures before and
 * after; a fold in progress elsewhere makes this one return 0 at once.
 */
export async function foldStatistics(db: Kysely<any>): Promise<number> {
  const { rows } = await sql<{ n: string }>`select fold_statistics() as n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
