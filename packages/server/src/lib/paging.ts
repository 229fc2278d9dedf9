import {
  type AliasNode,
  type Compilable,
  CompiledQuery,
  type Expression,
  type ExpressionBuilder,
  type SqlBool,
  FromNode,
  type KyselyPlugin,
  type OperationNode,
  type RootOperationNode,
  sql,
  type Kysely,
  type SelectQueryBuilder,
  SelectQueryNode,
  WithNode,
  CommonTableExpressionNode,
  CommonTableExpressionNameNode,
} from 'kysely';
import { ListError } from './errors.js';
import { customPlan } from '../db/prepared.js';
import { type ShapeParams, ShapedQuery } from './query-shape.js';
import { statsCache } from './stats-cache.js';
import { databaseMemory } from './database-memory.js';

/** Totals are exact up to this many matching rows; beyond it they are the planner's estimate. */
export const COUNT_CAP = 1_000;
/** `page` reaches rows up to this offset; deeper rows are reached with `cursor` (keyset paging). */
export const MAX_OFFSET = 10_000;
/** Planner estimates above this many rows are answered as they are, without counting. */
const ESTIMATE_ONLY_ABOVE = 5 * COUNT_CAP;
/**
 * How long the planner's estimate of the same count (same statement and parameters) is reused,
 * and with it the finding that counting passed COUNT_CAP (the total is then the estimate, and
 * the rows are not counted again within that time). An estimate moves only when the table is
 * analyzed; asking for it again on every request cost a statement (planning and a round trip) for
 * every page of every id-paged list, and recounting 1,001 rows to learn again that the total is
 * the estimate cost 3-4 ms on a million transports (closed forum topics, a common customer name).
 */
export const ESTIMATE_TTL_MS = 60_000;
const MAX_ESTIMATES = 2000;

export interface PageMeta {
  total: number;
  current_page: number;
  total_pages: number;
  limit: number;
  total_is_exact?: boolean;
  next_cursor?: string | null;
}
/** The meta of a keyset-paged list (the contract's KeysetPageMeta): both extras always present. */
export interface KeysetPageMeta extends PageMeta {
  total_is_exact: boolean;
  next_cursor: string | null;
}
/** The complaint list's meta, with the neighbouring pages. */
export interface LinkedPageMeta extends KeysetPageMeta {
  next_page: number | null;
  previous_page: number | null;
}

/** What a keyset page adds to the meta: whether the total is exact and where the next page starts. */
export interface PageExtras {
  exact: boolean;
  nextCursor: string | null;
}

export function pageMeta(total: number, page: number, limit: number): PageMeta;
export function pageMeta(total: number, page: number, limit: number, extras: PageExtras): KeysetPageMeta;
export function pageMeta(total: number, page: number, limit: number, extras?: PageExtras): PageMeta {
  const meta: PageMeta = { total, current_page: page, total_pages: Math.ceil(total / limit), limit };
  if (extras) {
    meta.total_is_exact = extras.exact;
    meta.next_cursor = extras.nextCursor;
  }
  return meta;
}

export function linkedPageMeta(total: number, page: number, limit: number, extras: PageExtras): LinkedPageMeta {
  const meta = pageMeta(total, page, limit, extras);
  return Object.assign({}, meta, {
    next_page: page < meta.total_pages ? page + 1 : null,
    previous_page: page > 1 ? Math.min(page - 1, Math.max(meta.total_pages, 1)) : null,
  });
}

/**
 * Runs one page of a filtered, ordered query and the count of its rows, for lists without an
 * id-first or keyset page (small tables, one topic's messages, one account's sessions).
 * `query` carries the joins, filters, selection and order; the count reuses its filters and, for
 * a query shape (lib/query-shape.ts), is capped like every list's total (exact up to COUNT_CAP,
 * the planner's estimate beyond: the contract's PageMeta). A query shape compiles its count and
 * its page once per shape key; a builder (built per request) is counted exactly.
 */
export async function fetchPage<O>(
  query: Listable<O>,
  page: number,
  limit: number,
  db?: Kysely<any>,
): Promise<{ rows: O[]; total: number }> {
  if (!(query instanceof ShapedQuery)) {
    const { total } = (await query
      .clearSelect()
      .clearOrderBy()
      .select((eb: ExpressionBuilder<any, any>) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow()) as { total: number | string };
    const rows = await query
      .limit(limit)
      .offset((page - 1) * limit)
      .execute();
    return { rows, total: Number(total) };
  }
  if (!db) throw new Error('a query shape needs the database to run on');
  const rowsOf = derived<O>(db, query, 'page', { values: ['_limit', '_offset'] }, { _limit: limit, _offset: (page - 1) * limit }, (q, p) =>
    q.limit(p._limit as number).offset(p._offset as number),
  );
  const { total } = await countCapped(db, query, undefined, 'count first');
  const rows = (await db.executeQuery(rowsOf)).rows;
  return { rows, total };
}

// ------------------------------------------------------------------ statements derived from a list's query

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyQuery = SelectQueryBuilder<any, any, any>;

/** What list helpers take: a query builder (built per request), or a query shape with its parameters. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Listable<O = any> = SelectQueryBuilder<any, any, O> | ShapedQuery<O>;

/**
 * The statement `derive` makes from `base`: for a shape, compiled once per key of the shape's
 * parameters and `extra` (named with a leading `_`, placeholders in `derive`); for a builder,
 * built and compiled now with `extra`'s values.
 */
export function derived<O>(
  db: Kysely<any> | undefined,
  base: Listable,
  name: string,
  options: ShapeParams<Record<string, unknown>>,
  extra: Record<string, unknown>,
  derive: (query: AnyQuery, p: Record<string, unknown>, db?: Kysely<any>) => Compilable<unknown>,
): CompiledQuery<O> {
  if (base instanceof ShapedQuery) {
    if (!db) throw new Error('a query shape needs the database to compile on');
    const shape = base.shape.derive<Record<string, unknown>, unknown>(name, options, (q, p, on) => derive(q as unknown as AnyQuery, p, on));
    return shape.compile(db, Object.assign({}, base.params, extra)) as CompiledQuery<O>;
  }
  const compiled = derive(base, extra).compile();
  return (options.text ? CompiledQuery.raw(options.text(compiled.sql), [...compiled.parameters]) : compiled) as CompiledQuery<O>;
}

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
  /** Reads the page owner by owner and merges them (see `PerOwner`); only when an index serves (owner, keys). */
  perOwner?: PerOwner | undefined;
  /** Reads the page as the union of a few runs (see `Runs`); only when an index serves each run in order. */
  runs?: Runs | undefined;
}

/**
 * A page read owner by owner: for a scope of several owners (a team manager's team), each owner's
 * rows are walked in the page's order on the index (owner column, sort keys…), the filters
 * evaluated on the rows as they come, at most offset + limit rows kept per owner, and the owners'
 * runs merged. The page's cost then follows the number of owners and how many of their rows pass
 * the filters, not the size of the table: walking the whole table's order and skipping the rows
 * of other owners reads (table / team) × (limit / filter's share) rows.
 * Each owner's rows are read behind a fence (`offset 0`): otherwise the planner may answer a
 * trigram filter with a bitmap over the filter's whole posting list for every owner. With
 * `columns`, the fence passes only the columns the filters read, so that a covering index serves
 * the walk alone (at 1M transports, a team of 12 with an `unloadingPoint=` filter: 5.3 -> 1.6 ms).
 */
export interface PerOwner {
  /** The base table's owner column, e.g. `t.created_by`; its base table is the base query's only FROM. */
  column: string;
  /** The owners' ids as one array expression, from the statement's parameters (placeholders in a shape). */
  owners: (p: Record<string, unknown>) => Expression<unknown>;
  /**
   * For a query shape: the parameters that lift the base's own owner condition (each owner's fence
   * applies it). Left in, the planner counts the owner condition twice, expects almost no row to
   * pass the filters and sorts each owner's rows instead of walking them.
   */
  unscoped?: Record<string, unknown>;
  /**
   * When reading owner by owner pays (a condition on the owners, decided once per run): the
   * statement then holds both plans, and the base's own walk of the whole order runs otherwise.
   * Owner by owner reads about owners × limit / (filters' share) rows, the whole order
   * limit / (filters' share × owners' share of the table): the first wins when
   * owners × (owners' rows) < (table's rows). On a small table where the team owns a third of
   * the rows, the whole order is the cheaper walk.
   */
  worthIt?: (owners: Expression<unknown>) => Expression<SqlBool>;
  /**
   * Every column of the base table the base's filters may read (qualified, e.g. `t.status`): each
   * owner's rows then carry only these and the sort keys, and an index on (owner column, sort
   * keys…) that includes them answers each owner's walk from the index alone (an index-only scan),
   * without a read of the table per row. Without it, the walk reads every row it passes.
   */
  columns?: string[];
}

/** A filtered page or count, planned for its parameter values on every run (see CUSTOM_PLAN). */
export const plannedForValues = <R>(q: CompiledQuery<R>): CompiledQuery<R> => CompiledQuery.raw(customPlan(q.sql), [...q.parameters]);

const countedRows = (base: AnyQuery) => base.clearSelect().clearOrderBy().select(sql`1`.as('one'));

const cappedRows = (rows: string) => `select count(*)::int as n from (${rows} limit ${COUNT_CAP + 1}) s`;
const cappedText = (rows: string) => customPlan(cappedRows(rows));
const explainText = (rows: string) => `explain (format json) ${rows}`;

/** The capped count of the rows of a compiled query (its text and parameters reused as they are). */
const cappedCountOf = (rows: CompiledQuery): CompiledQuery<{ n: number }> => CompiledQuery.raw(cappedText(rows.sql), [...rows.parameters]);

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
export const cappedCount = (base: Listable) => ({
  compile: (db?: Kysely<any>) => derived<{ n: number }>(db, base, 'capped', { text: cappedText }, {}, countedRows),
});

/**
 * The number of rows of `base` (only the table and its filters: no joins, no order): exact up to
 * COUNT_CAP, else the planner's estimate (at least COUNT_CAP + 1). The estimate comes first and
 * costs only planning (and is reused for a minute): when it is far beyond the cap, no row is read at all. The row query is
 * built and compiled once, for both statements (once per shape key for a query shape).
 */
export async function countCapped(
  db: Kysely<any>,
  base: Listable,
  totals?: TotalsCache,
  order: 'estimate first' | 'count first' = 'estimate first',
): Promise<Counted> {
  let explain: CompiledQuery;
  let capped: CompiledQuery<{ n: number }>;
  if (base instanceof ShapedQuery) {
    explain = derived(db, base, 'explain', { text: explainText }, {}, countedRows);
    // Counted first, the count is prepared like the page (its plan does not hinge on the values).
    capped =
      order === 'count first' ? derived(db, base, 'capped prepared', { text: cappedRows }, {}, countedRows) : cappedCount(base).compile(db);
  } else {
    const rows = countedRows(base).compile();
    explain = CompiledQuery.raw(explainText(rows.sql), [...rows.parameters]);
    capped = order === 'count first' ? CompiledQuery.raw(cappedRows(rows.sql), [...rows.parameters]) : cappedCountOf(rows);
  }
  if (order === 'count first') return countFirst(db, explain, capped);
  if (totals) return totals(db, `${capped.sql}\u0000${JSON.stringify(capped.parameters)}`, () => countWith(db, explain, capped));
  return countWith(db, explain, capped);
}

/** The planner's estimate of one count and whether counting found more rows than COUNT_CAP. */
interface Estimate {
  estimate: number;
  at: number;
  beyondCap: boolean;
}

// One map per database handle, like the statistics caches.
const estimates = databaseMemory<Estimate>(MAX_ESTIMATES);

/** The planner's estimate of the rows `explain` counts, reused (with what counting found) for ESTIMATE_TTL_MS. */
async function plannerEstimate(db: Kysely<any>, explain: CompiledQuery): Promise<Estimate> {
  const kept = estimates.of(db);
  const key = `${explain.sql}\u0000${JSON.stringify(explain.parameters)}`;
  const hit = kept.get(key);
  if (hit && Date.now() - hit.at < ESTIMATE_TTL_MS) return hit;
  const plan = await db.executeQuery<{ 'QUERY PLAN': unknown }>(explain as CompiledQuery<{ 'QUERY PLAN': unknown }>);
  const raw = plan.rows[0]?.['QUERY PLAN'];
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: { 'Plan Rows': number } }>;
  const entry = { estimate: Math.round(parsed[0]?.Plan['Plan Rows'] ?? 0), at: Date.now(), beyondCap: false };
  estimates.remember(kept, key, entry);
  return entry;
}

async function countWith(db: Kysely<any>, explain: CompiledQuery, capped: CompiledQuery<{ n: number }>): Promise<Counted> {
  const known = await plannerEstimate(db, explain);
  const beyond = { total: Math.max(COUNT_CAP + 1, known.estimate), exact: false };
  if (known.estimate > ESTIMATE_ONLY_ABOVE || known.beyondCap) return beyond;
  const counted = await db.executeQuery(capped);
  const n = Number(counted.rows[0]?.n ?? 0);
  if (n <= COUNT_CAP) return { total: n, exact: true };
  known.beyondCap = true;
  return beyond;
}

/**
 * The capped count first, the planner's estimate only beyond COUNT_CAP: for lists whose rows come
 * with their joins (small tables, one topic's messages), where an estimate of the joined rows is
 * a poorer guess than reading at most COUNT_CAP + 1 of them.
 */
async function countFirst(db: Kysely<any>, explain: CompiledQuery, capped: CompiledQuery<{ n: number }>): Promise<Counted> {
  const counted = await db.executeQuery(capped);
  const n = Number(counted.rows[0]?.n ?? 0);
  if (n <= COUNT_CAP) return { total: n, exact: true };
  const known = await plannerEstimate(db, explain);
  return { total: Math.max(COUNT_CAP + 1, known.estimate), exact: false };
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

/** The statement of one page's sort keys (as text) and ids, built from `base` (real values or placeholders in `p`). */
const idsPage =
  (keys: SortKey[], direction: 'asc' | 'desc', withCursor: boolean, withOffset: boolean) =>
  (base: AnyQuery, p: Record<string, unknown>) => {
    const refs = keys.map((k) => sql.ref(k.column));
    let page = base;
    if (withCursor) page = page.where(after(keys, direction, p));
    if (!withOffset || base.toOperationNode().joins?.length) {
      page = page.clearSelect().select(keys.map((k, i) => sql<string>`${sql.ref(k.column)}::text`.as(`k${i}`)));
      for (const ref of refs) page = page.orderBy(ref, direction);
      page = page.limit(p._limit as number);
      if (withOffset) page = page.offset(p._offset as number);
      return page;
    }
    // At an offset, the rows skipped are read but not turned into text: the keys' text is made
    // for the page's rows only, outside (a timestamp's text costs more than reading its index entry).
    page = page.clearSelect().select(keys.map((k, i) => sql`${sql.ref(k.column)}`.as(`s${i}`)));
    for (const ref of refs) page = page.orderBy(ref, direction);
    page = page.limit(p._limit as number).offset(p._offset as number);
    let out = base
      .clearWhere()
      .clearSelect()
      .select(keys.map((_, i) => sql<string>`${sql.ref(`page.s${i}`)}::text`.as(`k${i}`)));
    for (let i = 0; i < keys.length; i++) out = out.orderBy(sql.ref(`page.s${i}`), direction);
    return out.withPlugin(withFrom(sql`${page}`.as('page').toOperationNode()));
  };

/** A plugin that compiles a query with another FROM clause and WITH clause (nodes Kysely's builder cannot make). */
const withFrom = (from: OperationNode, ctes?: WithNode): KyselyPlugin => ({
  transformQuery: ({ node }): RootOperationNode =>
    SelectQueryNode.is(node)
      ? (Object.freeze(Object.assign({}, node, { from: FromNode.create([from]) }, ctes ? { with: ctes } : {})) as RootOperationNode)
      : node,
  transformResult: async ({ result }) => result,
});

/** The statement of one page's sort keys and ids read owner by owner (see PerOwner). */
/** The base query's one table (`table as alias`), which a fence reads again. */
function baseTable(base: AnyQuery): { table: AliasNode; alias: string } {
  const source = base.toOperationNode().from?.froms;
  if (source?.length !== 1 || source[0]!.kind !== 'AliasNode') throw new Error('paging: the base query must read one aliased table');
  const table = source[0] as AliasNode;
  return { table, alias: (table.alias as unknown as { name: string }).name };
}

/**
 * `base` (its filters, without its scope) over the rows of its table that pass `run`, walked in
 * the page's order behind a fence: the filters stay outside, on the rows as they come, so the
 * planner cannot answer them with a bitmap over the filter's whole index. At most the rows up to
 * the end of the page; each row with its sort keys as text (`k0`…) and as they are (`s0`…).
 * With `columns`, the fence passes those and the sort keys instead of every column (PerOwner's `columns`).
 */
function fencedRun(
  base: AnyQuery,
  run: Expression<SqlBool>,
  keys: SortKey[],
  direction: 'asc' | 'desc',
  withCursor: boolean,
  withOffset: boolean,
  p: Record<string, unknown>,
  columns?: string[],
): AnyQuery {
  const { table, alias } = baseTable(base);
  const order = sql.join(keys.map((k) => sql`${sql.ref(k.column)} ${sql.raw(direction)}`));
  const carried = columns ? sql.join([...new Set([...keys.map((k) => k.column), ...columns])].map((c) => sql.ref(c))) : sql`*`;
  const fence = sql`(select ${carried} from ${{ toOperationNode: () => table.node }} as ${sql.id(alias)} where ${run} order by ${order} offset 0)`;
  const upTo = withOffset ? sql<number>`(cast(${p._limit} as bigint) + cast(${p._offset} as bigint))` : p._limit;
  let inner = base.withPlugin(withFrom(fence.as(alias).toOperationNode()));
  if (withCursor) inner = inner.where(after(keys, direction, p));
  return inner
    .clearSelect()
    .select(keys.flatMap((k, i) => [sql<string>`${sql.ref(k.column)}::text`.as(`k${i}`), sql`${sql.ref(k.column)}`.as(`s${i}`)]))
    .limit(upTo as number);
}

/** The page (`limit`, `offset`) of the runs merged in `x`: their sort keys as text and as they are. */
function mergedPage(base: AnyQuery, keys: SortKey[], direction: 'asc' | 'desc', withOffset: boolean, p: Record<string, unknown>) {
  let page = base
    .clearWhere()
    .clearSelect()
    .select(keys.flatMap((_, i) => [sql<string>`${sql.ref(`x.k${i}`)}`.as(`k${i}`), sql`${sql.ref(`x.s${i}`)}`.as(`s${i}`)]));
  for (let i = 0; i < keys.length; i++) page = page.orderBy(sql.ref(`x.s${i}`), direction);
  page = page.limit(p._limit as number);
  if (withOffset) page = page.offset(p._offset as number);
  return page;
}

/**
 * A page read as the union of a few runs, each a condition on the base table served in the
 * page's order by an index (e.g. `created_by = $1` and `assigned_to = $1 and created_by <> $1`
 * for "mine or assigned to me"): the runs together must select exactly the rows of the base's
 * own scope, without overlap. An OR of two columns has no index that serves it in order; each
 * run has, and the page reads about limit / (filters' share) rows of each.
 */
export interface Runs {
  conditions: (p: Record<string, unknown>) => Array<Expression<SqlBool>>;
  /** For a query shape: the parameters that lift the base's own scope (the runs apply it), as in PerOwner. */
  unscoped?: Record<string, unknown>;
}

/** The statement of one page's sort keys and ids read as the union of runs (see Runs). */
const idsInRuns =
  (keys: SortKey[], direction: 'asc' | 'desc', withCursor: boolean, withOffset: boolean, runs: Runs) =>
  (base: AnyQuery, p: Record<string, unknown>) => {
    const branches = runs.conditions(p).map((run) => fencedRun(base, run, keys, direction, withCursor, withOffset, p));
    const union = sql`(${sql.join(branches, sql` union all `)}) as "x"`;
    return mergedPage(base, keys, direction, withOffset, p).withPlugin(withFrom(union.toOperationNode()));
  };

/** The statement of one page's sort keys and ids read owner by owner (see PerOwner). */
const idsPerOwner =
  (keys: SortKey[], direction: 'asc' | 'desc', withCursor: boolean, withOffset: boolean, per: PerOwner) =>
  (scoped: AnyQuery, base: AnyQuery, p: Record<string, unknown>) => {
    // One owner's rows in the page's order, up to the end of the page.
    const inner = fencedRun(
      base,
      sql<SqlBool>`${sql.ref(per.column)} = "owner"."id"`,
      keys,
      direction,
      withCursor,
      withOffset,
      p,
      per.columns,
    );
    // The owners are resolved once, in a CTE, however many times the statement refers to them.
    // (An expression, not a bare subquery: `= any(…)` of a subquery would compare with each array.)
    const owners = sql`(select "ids" from "owners")::int[]`;
    const ctes = WithNode.create(
      CommonTableExpressionNode.create(
        CommonTableExpressionNameNode.create('owners', ['ids']),
        sql`(select ${per.owners(p)})`.toOperationNode(),
      ),
    );
    const merged = sql`unnest(${owners}) as "owner"("id") cross join lateral (${inner}) as "x"`;
    let page = mergedPage(base, keys, direction, withOffset, p);
    if (per.worthIt) page = page.where(per.worthIt(owners));
    if (!per.worthIt) return page.withPlugin(withFrom(merged.toOperationNode(), ctes));
    page = page.withPlugin(withFrom(merged.toOperationNode()));
    // Both plans, one of them run: the owners' condition is an init plan, each branch's one-time filter.
    let whole = scoped;
    if (withCursor) whole = whole.where(after(keys, direction, p));
    whole = whole
      .clearSelect()
      .select(keys.flatMap((k, i) => [sql<string>`${sql.ref(k.column)}::text`.as(`k${i}`), sql`${sql.ref(k.column)}`.as(`s${i}`)]))
      .where(sql<SqlBool>`not (${per.worthIt(owners)})`);
    for (const k of keys) whole = whole.orderBy(sql.ref(k.column), direction);
    whole = whole.limit(p._limit as number);
    if (withOffset) whole = whole.offset(p._offset as number);
    const either = sql`((${page}) union all (${whole})) as "pages"`;
    let out = base
      .clearWhere()
      .clearSelect()
      .select(keys.map((_, i) => sql<string>`${sql.ref(`pages.k${i}`)}`.as(`k${i}`)));
    for (let i = 0; i < keys.length; i++) out = out.orderBy(sql.ref(`pages.s${i}`), direction);
    return out.withPlugin(withFrom(either.toOperationNode(), ctes));
  };

/** Rows after the cursor's sort keys (placeholders `_k0`… in `p`). */
const after = (keys: SortKey[], direction: 'asc' | 'desc', p: Record<string, unknown>) => {
  const values = sql.join(keys.map((k, i) => sql`cast(${p[`_k${i}`]} as ${sql.raw(k.type)})`));
  return sql<SqlBool>`(${sql.join(keys.map((k) => sql.ref(k.column)))}) ${sql.raw(direction === 'desc' ? '<' : '>')} (${values})`;
};

/** The query of one page's sort keys (as text) and ids: after the cursor, or at the page's offset. */
export function keysetIdsQuery(base: Listable, r: Omit<KeysetRequest<unknown>, 'load' | 'idOf'>) {
  const signature = keysetSignature(r.keys, r.direction);
  const extra: Record<string, unknown> = { _limit: r.limit };
  const withCursor = r.cursor !== undefined;
  if (r.cursor !== undefined) {
    decodeCursor(r.cursor, signature, r.keys.length).forEach((v, i) => {
      extra[`_k${i}`] = v;
    });
  } else if ((r.page - 1) * r.limit >= MAX_OFFSET) {
    throw new ListError(400, 'Validation failed', [
      `querystring/page must not start beyond row ${MAX_OFFSET}: follow meta.next_cursor with the cursor parameter to read further`,
    ]);
  }
  const withOffset = !withCursor && r.page > 1;
  if (withOffset) extra._offset = (r.page - 1) * r.limit;
  const values = Object.keys(extra);
  const per = r.perOwner;
  const perOwner = per && idsPerOwner(r.keys, r.direction, withCursor, withOffset, per);
  const inRuns = r.runs && idsInRuns(r.keys, r.direction, withCursor, withOffset, r.runs);
  const lifted = per?.unscoped ?? r.runs?.unscoped;
  // The base without its owner condition: the same shape built with `unscoped` (a builder is taken as it is).
  const unscoped = (q: AnyQuery, p: Record<string, unknown>, on?: Kysely<any>): AnyQuery =>
    lifted && on && base instanceof ShapedQuery ? (base.shape.build(on, Object.assign({}, p, lifted)) as unknown as AnyQuery) : q;
  return {
    compile: (db?: Kysely<any>): CompiledQuery<Record<string, string>> =>
      derived(
        db,
        base,
        `ids ${signature} ${withCursor ? 'c' : ''}${withOffset ? 'o' : ''}${r.perOwner ? ` per ${r.perOwner.column}` : ''}${r.runs ? ' runs' : ''}`,
        { values },
        extra,
        perOwner
          ? (q, p, on) => perOwner(q, unscoped(q, p, on), p)
          : inRuns
            ? (q, p, on) => inRuns(unscoped(q, p, on), p)
            : idsPage(r.keys, r.direction, withCursor, withOffset),
      ),
  };
}

/**
 * One page of `base` (the filtered base table, no joins) in the order of `keys`: the ids of the
 * page first (an index range read, by offset up to MAX_OFFSET or after a keyset `cursor`), then
 * `load` fetches their full rows, and the total is counted on `base` alone (countCapped).
 */
export async function fetchKeysetPage<Row>(
  db: Kysely<any>,
  base: Listable,
  r: KeysetRequest<Row>,
): Promise<{ rows: Row[]; total: number; extras: PageExtras }> {
  const page = keysetIdsQuery(base, r).compile(db);
  const signature = keysetSignature(r.keys, r.direction);
  const [keyRows, counted] = await Promise.all([
    db.executeQuery<Record<string, string>>(plannedForValues(page)).then((result) => result.rows),
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
