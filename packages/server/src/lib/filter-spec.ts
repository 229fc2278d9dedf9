import type { Expression, ExpressionBuilder, SelectQueryBuilder, SqlBool } from 'kysely';

/*
 * Filter specs: each list declares each of its filters once, typed from the contract's query
 * parameters, and its page, count and export all apply them through one base query.
 *
 * `FilterSpecs<Q, W>` maps every query parameter of `Q` that is not a paging one to its spec: a
 * parameter the contract adds without a spec is a type error ("Property 'x' is missing"). The
 * list's query shape (lib/query-shape.ts) binds each filter under the parameter's name, so a filter
 * cannot be applied by one statement and forgotten by another.
 */

/** The parameters that page and order a list rather than filter it (the paging helpers read them). */
export const PAGING = ['page', 'limit', 'cursor', 'sortBy', 'sortOrder'] as const;
export type Paging = (typeof PAGING)[number];

/** The filter parameters of a list's query `Q`. */
export type FilterName<Q> = Exclude<keyof Q, Paging> & string;

/** The expression builder of the base query `B` (what a filter's condition is written with). */
export type WhereOf<B> = B extends SelectQueryBuilder<infer D, infer T, infer _O> ? ExpressionBuilder<D, T> : never;

/** One filter: its value as the statement binds it, the condition it adds, the columns it reads. */
export interface AppliedFilter<V, W> {
  /** The bound value, from the parameter's (present) value; undefined leaves the list unfiltered. */
  bind: (value: V) => unknown;
  /**
   * The condition, given the bound value (a placeholder while the query shape builds the
   * statement) and the list's other parameters (such as the instant a status is judged at).
   */
  where: (eb: W, bound: unknown, params: Readonly<Record<string, unknown>>) => Expression<SqlBool>;
  /** The columns of the base table it reads (an index meant to cover the list must carry them). */
  columns: readonly string[];
  /** A text filter keeps a small share of the rows (plans that walk an order then pay). */
  text?: true;
  /**
   * The bound value decides the statement's text (its condition differs by value, from a small
   * set): the query shape keys on it instead of binding it as a parameter.
   */
  structure?: true;
}

/** A parameter the list's own scope already applies (it adds no condition): says why. */
export interface ImpliedFilter {
  implied: string;
}

export type FilterSpec<V, W> = AppliedFilter<V, W> | ImpliedFilter;

/**
 * A spec for every filter parameter of `Q`, conditions written with `W` (the list's `WhereOf`;
 * `never` where only the parameters matter, as in the type tests).
 */
export type FilterSpecs<Q, W = never> = { [K in FilterName<Q>]-?: FilterSpec<NonNullable<Q[K]>, W> };

/** The filters of a base query, with their values as the statement binds them (undefined: not filtered). */
export type BoundFilters<Q> = { [K in FilterName<Q>]?: unknown };

/** The parameter's value, unchanged. */
export const same = <V>(value: V) => value;

/** A list's filters, declared once, and what the list derives from them. */
export interface Filters<Q, W> {
  readonly specs: FilterSpecs<Q, W>;
  /** The filters that add a condition, in the order of the conditions in the statement. */
  readonly names: ReadonlyArray<FilterName<Q>>;
  /** Those bound as parameters (the query shape's `values`). */
  readonly values: ReadonlyArray<FilterName<Q>>;
  /** Those whose value decides the statement's text (the query shape's `structure`). */
  readonly structure: ReadonlyArray<FilterName<Q>>;
  /** Every column the filters read, once each. */
  readonly columns: readonly string[];
  /** The bound value of each filter given in `query`, written into `into` (which is returned). */
  bind<P extends object>(query: Partial<Record<FilterName<Q>, unknown>>, into: P): P & BoundFilters<Q>;
  /** The base query with the condition of each filter bound in `bound` (the list's parameters). */
  apply<D, T extends keyof D, O>(query: SelectQueryBuilder<D, T, O>, bound: BoundFilters<Q>): SelectQueryBuilder<D, T, O>;
  /** Whether a text filter is bound. */
  textFiltered(bound: BoundFilters<Q>): boolean;
}

/** The filters of a list from their specs (the order of `specs` is the order of the conditions). */
export function filters<Q, W>(specs: FilterSpecs<Q, W>): Filters<Q, W> {
  const applied = (name: FilterName<Q>) => specs[name] as FilterSpec<unknown, W>;
  const names = (Object.keys(specs) as Array<FilterName<Q>>).filter((name) => !('implied' in applied(name)));
  const spec = (name: FilterName<Q>) => specs[name] as AppliedFilter<unknown, W>;
  return {
    specs,
    names,
    values: names.filter((name) => spec(name).structure !== true),
    structure: names.filter((name) => spec(name).structure === true),
    columns: [...new Set(names.flatMap((name) => spec(name).columns))],
    bind(query, into) {
      const out = into as Record<string, unknown>;
      for (const name of names) {
        const value = query[name];
        out[name] = value === undefined ? undefined : spec(name).bind(value);
      }
      return into as typeof into & BoundFilters<Q>;
    },
    apply(query, bound) {
      let q = query;
      const params = bound as Readonly<Record<string, unknown>>;
      for (const name of names) {
        const value = bound[name];
        // The list's conditions are written for its base query (W is that query's WhereOf).
        if (value !== undefined) q = q.where((eb) => spec(name).where(eb as unknown as W, value, params));
      }
      return q;
    },
    textFiltered: (bound) => names.some((name) => spec(name).text === true && bound[name] !== undefined),
  };
}
