import { CompiledQuery, sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { ListError } from '../http/errors.js';
import { customPlan } from '../db/prepared.js';
import { statsCache } from './stats-cache.js';

/** Totals are exact up to this many matching rows; beyond it they are the planner's estimate. */
export const COUNT_CAP = 1_000;
/** `page` reaches rows up to this offset; deeper rows are reached with `cursor` (keyset paging). */
export const MAX_OFFSET = 10_000;
/** Planner estimates above this many rows are answered as they are, without counting. */
const ESTIMATE_ONLY_ABOVE = 5 * COUNT_CAP;

export interface PageMeta {
  total: number;
  current_page: number;
  total_pages: number;
  limit: number;
  total_is_exact?: boolean;
  next_cursor?: string | null;
}
/** The complaint list's meta, with the neighbouring pages. */
export interface LinkedPageMeta extends PageMeta {
  next_page: number | null;
  previous_page: number | null;
}

/** What a keyset page adds to the meta: whether the total is exact and where the next page starts. */
export interface PageExtras {
  exact: boolean;
  nextCursor: string | null;
}

export function pageMeta(total: number, page: number, limit: number, extras?: PageExtras): PageMeta {
  const meta: PageMeta = { total, current_page: page, total_pages: Math.ceil(total / limit), limit };
  if (extras) {
    meta.total_is_exact = extras.exact;
    meta.next_cursor = extras.nextCursor;
  }
  return meta;
}

export function linkedPageMeta(total: number, page: number, limit: number, extras?: PageExtras): LinkedPageMeta {
  const meta = pageMeta(total, page, limit, extras);
  return {
    ...meta,
    next_page: page < meta.total_pages ? page + 1 : null,
    previous_page: page > 1 ? Math.min(page - 1, Math.max(meta.total_pages, 1)) : null,
  };
}

/**
 * Runs one page of a filtered, ordered query and the count of all its rows.
 * `query` carries the joins, filters, selection and order; the count reuses its filters.
 */
export async function fetchPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: number,
  limit: number,
): Promise<{ rows: O[]; total: number }> {
  const counted = query
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll<number>().as('total'));
  const { total } = (await counted.executeTakeFirstOrThrow()) as { total: number | string };
  const rows = await query
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  return { rows, total: Number(total) };
}

// ------------------------------------------------------------------ keyset paging on a base table

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyQuery = SelectQueryBuilder<any, any, any>;

/** A sort key: a column of the base table and the SQL type its cursor value is cast back to. */
export interface SortKey {
  column: string;
  type: 'timestamptz' | 'text' | 'integer';
}

export interface KeysetRequest<Row> {
  /** Sort keys, most significant first; the last one is the table's unique id. */
  keys: SortKey[];
  direction: 'asc' | 'desc';
  page: number;
  limit: number;
  cursor?: string | undefined;
  /** The full rows of some ids (any order): joins and computed columns run for the page only. */
  load: (ids: number[]) => Promise<Row[]>;
  idOf: (row: Row) => number;
  /** Reuses totals while the base table has not changed (`totalsCache`); without it every page counts. */
  totals?: TotalsCache | undefined;
}

/** A filtered page or count, planned for its parameter values on every run (see CUSTOM_PLAN). */
export const plannedForValues = <R>(q: CompiledQuery<R>): CompiledQuery<R> => CompiledQuery.raw(customPlan(q.sql), [...q.parameters]);

const countedRows = (base: AnyQuery) => base.clearSelect().clearOrderBy().select(sql`1`.as('one'));

/** The capped count of the rows of a compiled query (its text and parameters reused as they are). */
const cappedCountOf = (rows: CompiledQuery): CompiledQuery<{ n: number }> =>
  CompiledQuery.raw(customPlan(`select count(*)::int as n from (${rows.sql} limit ${COUNT_CAP + 1}) s`), [...rows.parameters]);

export interface Counted {
  total: number;
  exact: boolean;
}

/**
 * A cache of list totals over one table with a table-wide change counter (every writing statement
 * on the table advances it): the total of the same filtered list (same SQL and parameters) is
 * reused while the counter has not moved, for at most STATS_TTL_MS. Paging through a filtered
 * list counts it once instead of on every page; the check costs one trivial query.
 */
export type TotalsCache = ReturnType<typeof statsCache<Counted>>;
export const totalsCache = (table: 'transports' | 'complaints'): TotalsCache => statsCache<Counted>(table);

/** The count of `base`'s rows, reading at most COUNT_CAP + 1 of them. */
export const cappedCount = (base: AnyQuery) => ({ compile: () => cappedCountOf(countedRows(base).compile()) });

/**
 * The number of rows of `base` (only the table and its filters: no joins, no order): exact up to
 * COUNT_CAP, else the planner's estimate (at least COUNT_CAP + 1). The estimate comes first and
 * costs only planning: when it is far beyond the cap, no row is read at all. The row query is
 * built and compiled once, for both statements.
 */
export async function countCapped(db: Kysely<any>, base: AnyQuery, totals?: TotalsCache): Promise<Counted> {
  const rows = countedRows(base).compile();
  if (totals) return totals(db, `${rows.sql}\u0000${JSON.stringify(rows.parameters)}`, () => countRows(db, rows));
  return countRows(db, rows);
}

async function countRows(db: Kysely<any>, rows: CompiledQuery): Promise<Counted> {
  const plan = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
    CompiledQuery.raw(`explain (format json) ${rows.sql}`, [...rows.parameters]),
  );
  const raw = plan.rows[0]?.['QUERY PLAN'];
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: { 'Plan Rows': number } }>;
  const estimate = Math.round(parsed[0]?.Plan['Plan Rows'] ?? 0);
  if (estimate > ESTIMATE_ONLY_ABOVE) return { total: estimate, exact: false };
  const counted = await db.executeQuery(cappedCountOf(rows));
  const n = Number(counted.rows[0]?.n ?? 0);
  if (n <= COUNT_CAP) return { total: n, exact: true };
  return { total: Math.max(COUNT_CAP + 1, estimate), exact: false };
}

const badCursor = (why: string) => new ListError(400, 'Validation failed', [`querystring/cursor ${why}`]);

function decodeCursor(cursor: string, signature: string, keyCount: number): string[] {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor('is not a cursor handed out by this list');
  }
  const { s, k } = (payload ?? {}) as { s?: unknown; k?: unknown };
  if (!Array.isArray(k) || k.length !== keyCount || !k.every((v) => typeof v === 'string')) {
    throw badCursor('is not a cursor handed out by this list');
  }
  if (s !== signature) throw badCursor('was handed out for another sortBy/sortOrder');
  return k as string[];
}

const encodeCursor = (signature: string, values: string[]) =>
  Buffer.from(JSON.stringify({ s: signature, k: values }), 'utf8').toString('base64url');

const keysetSignature = (keys: SortKey[], direction: string) => `${keys.map((k) => k.column).join(',')}:${direction}`;

/** The query of one page's sort keys (as text) and ids: after the cursor, or at the page's offset. */
export function keysetIdsQuery(base: AnyQuery, r: Omit<KeysetRequest<unknown>, 'load' | 'idOf'>): AnyQuery {
  const refs = r.keys.map((k) => sql.ref(k.column));
  let page = base;
  if (r.cursor !== undefined) {
    const values = decodeCursor(r.cursor, keysetSignature(r.keys, r.direction), r.keys.length);
    const after = sql.join(values.map((v, i) => sql`cast(${v} as ${sql.raw(r.keys[i]!.type)})`));
    page = page.where(sql<boolean>`(${sql.join(refs)}) ${sql.raw(r.direction === 'desc' ? '<' : '>')} (${after})`);
  } else if ((r.page - 1) * r.limit >= MAX_OFFSET) {
    throw new ListError(400, 'Validation failed', [
      `querystring/page must not start beyond row ${MAX_OFFSET}: follow meta.next_cursor with the cursor parameter to read further`,
    ]);
  }
  page = page.clearSelect().select(r.keys.map((k, i) => sql<string>`${sql.ref(k.column)}::text`.as(`k${i}`)));
  for (const ref of refs) page = page.orderBy(ref, r.direction);
  page = page.limit(r.limit);
  if (r.cursor === undefined && r.page > 1) page = page.offset((r.page - 1) * r.limit);
  return page;
}

/**
 * One page of `base` (the filtered base table, no joins) in the order of `keys`: the ids of the
 * page first (an index range read, by offset up to MAX_OFFSET or after a keyset `cursor`), then
 * `load` fetches their full rows, and the total is counted on `base` alone (countCapped).
 */
export async function fetchKeysetPage<Row>(
  db: Kysely<any>,
  base: AnyQuery,
  r: KeysetRequest<Row>,
): Promise<{ rows: Row[]; total: number; extras: PageExtras }> {
  const page = keysetIdsQuery(base, r);
  const signature = keysetSignature(r.keys, r.direction);
  const [keyRows, counted] = await Promise.all([
    db.executeQuery<Record<string, string>>(plannedForValues(page.compile())).then((res) => res.rows),
    countCapped(db, base, r.totals),
  ]);
  const last = r.keys.length - 1;
  const ids = keyRows.map((k) => Number(k[`k${last}`]));
  const byId = new Map((ids.length > 0 ? await r.load(ids) : []).map((row) => [r.idOf(row), row]));
  const rows = ids.map((id) => byId.get(id)).filter((row): row is Row => row !== undefined);
  const end = keyRows.at(-1);
  const nextCursor =
    keyRows.length === r.limit && end
      ? encodeCursor(
          signature,
          r.keys.map((_, i) => end[`k${i}`]!),
        )
      : null;
  return { rows, total: counted.total, extras: { exact: counted.exact, nextCursor } };
}
