import { sql, type Kysely } from 'kysely';
import { countCapped, derived, type Listable, plannedForValues } from './paging.js';

export interface IdPageRequest<Row> {
  /** The id column of the base table, e.g. `a.id`; the page is ordered by `base`'s own order. */
  id: string;
  page: number;
  limit: number;
  /** The full rows of some ids (any order): joins and computed columns run for the page only. */
  load: (ids: number[]) => Promise<Row[]>;
  idOf: (row: Row) => number;
  /**
   * How the page's ids and count are planned: `per value` (default) plans them for their values
   * on every run, for large tables whose filters' selectivity varies by orders of magnitude;
   * `prepared` runs them as prepared statements and counts before estimating, for small tables
   * (accounts, organizations) where one plan fits every value and planning would cost more than
   * reading.
   */
  plan?: 'per value' | 'prepared';
}

/**
 * One offset page of `base` (the filtered, ordered base table: no joins) for lists without keyset
 * paging: the page's ids first, then `load` fetches their full rows, and the total is counted on
 * `base` alone, exact up to COUNT_CAP (countCapped).
 */
export async function fetchIdPage<Row>(
  db: Kysely<any>,
  base: Listable,
  r: IdPageRequest<Row>,
): Promise<{ rows: Row[]; total: number; exact: boolean }> {
  const page = derived<{ id: number }>(
    db,
    base,
    `ids ${r.id}`,
    { values: ['_limit', '_offset'] },
    { _limit: r.limit, _offset: (r.page - 1) * r.limit },
    (q, p) =>
      q
        .clearSelect()
        .select(sql<number>`${sql.ref(r.id)}`.as('id'))
        .limit(p._limit as number)
        .offset(p._offset as number),
  );
  const prepared = r.plan === 'prepared';
  const [idRows, counted] = await Promise.all([
    db.executeQuery(prepared ? page : plannedForValues(page)).then((result) => result.rows),
    countCapped(db, base, undefined, prepared ? 'count first' : 'estimate first'),
  ]);
  const ids = idRows.map((row) => Number(row.id));
  const byId = new Map((ids.length > 0 ? await r.load(ids) : []).map((row) => [r.idOf(row), row]));
  const rows = ids.map((id) => byId.get(id)).filter((row): row is Row => row !== undefined);
  return { rows, total: counted.total, exact: counted.exact };
}

/** Rows by id, as a query shape of `ids` gives them (`where x.id = any(ids)`). */
interface RowsById<Row> {
  execute(db: Kysely<any>, params: { ids: number[] }): Promise<Row[]>;
}

/**
 * fetchIdPage for a small table's list (prepared statements, see `plan`) whose page rows are
 * loaded by `byIds` and carry their `id`.
 */
export function fetchPreparedIdPage<Row extends { id: number }>(
  db: Kysely<any>,
  base: Listable,
  id: string,
  byIds: RowsById<Row>,
  at: { page: number; limit: number },
) {
  return fetchIdPage(db, base, {
    id,
    page: at.page,
    limit: at.limit,
    load: (ids) => byIds.execute(db, { ids }),
    idOf: (row) => row.id,
    plan: 'prepared',
  });
}
