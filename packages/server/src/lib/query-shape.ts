import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/*
 * Query shapes: statements built with Kysely and compiled once, then run with fresh parameters.
 *
 * Building a query with Kysely (immutable, frozen nodes; every column reference parsed) and
 * compiling it cost more CPU than anything else a list request does in this process. Most
 * statements have a fixed shape: only their values change from one request to the next. A
 * shape's builder receives, instead of the values, placeholders (`Slot`s) that Kysely binds as
 * parameters like any value; the compiled text is kept with, for each parameter, the name of the
 * value to put there. Later runs of the same shape copy the values into a fresh parameter list
 * and send the kept text: nothing is built or compiled again, and the same text object reaches
 * pg (prepared statements, see db/prepared.ts) every time.
 *
 * What changes the text is the shape's key, computed for each run from the parameters:
 * - `values`: bound as parameters; their presence (undefined or not) is part of the key, so a
 *   builder may test `p.x !== undefined` to add a condition, but must not look at the value
 *   itself (a Slot refuses to become text or a number: misuse fails at the first build);
 * - `structure`: handed to the builder as they are (a sort column, a direction, an access level)
 *   and part of the key by value: keep them to small sets of values.
 * A list of values is bound as one array parameter (`= any(${p.ids})`), not one parameter per
 * item, so that its length does not change the text.
 *
 * The compiled text is the same for every database of the API (PostgreSQL's dialect, PGlite's
 * included, and no Kysely plugin), so the shapes are kept for the process.
 */

/** Where a run-time value goes in a shape's statement. */
export class Slot {
  constructor(readonly name: string) {}
  [Symbol.toPrimitive](): never {
    throw new Error(
      `query shape: the value "${this.name}" was used while building the statement; declare it in "structure" or pass it already transformed`,
    );
  }
}

type AnyDb = Kysely<Database>;

interface Template {
  sql: string;
  query: CompiledQuery['query'];
  /** For each parameter, the name of the value bound there, or null for a constant. */
  names: Array<string | null>;
  constants: unknown[];
}

/** Options of a shape: which parameters are bound values and which decide the statement's text. */
export interface ShapeParams<P> {
  values?: ReadonlyArray<keyof P & string>;
  structure?: ReadonlyArray<keyof P & string>;
  /** A final touch to the compiled text (e.g. wrapping it in `explain` or a count). */
  text?: (sql: string) => string;
}

/** Shapes whose derivations are one text per key but differ from the statement they derive from. */
export class QueryShape<P extends object, O> {
  readonly #values: ReadonlyArray<string>;
  readonly #structure: ReadonlyArray<string>;
  readonly #text: ((sql: string) => string) | undefined;
  readonly #templates = new Map<string, Template>();
  readonly #derived = new Map<string, QueryShape<P, unknown>>();

  constructor(
    options: ShapeParams<P>,
    readonly build: (db: AnyDb, p: P) => Compilable<O>,
  ) {
    this.#values = options.values ?? [];
    this.#structure = options.structure ?? [];
    this.#text = options.text;
  }

  #key(params: P): string {
    const p = params as Record<string, unknown>;
    let key = '';
    for (const name of this.#values) key += p[name] === undefined ? '0' : '1';
    for (const name of this.#structure) key += `\u0001${String(p[name])}`;
    return key;
  }

  #template(db: AnyDb, params: P, key: string): Template {
    const p = params as Record<string, unknown>;
    const slots: Record<string, unknown> = {};
    for (const name of this.#values) slots[name] = p[name] === undefined ? undefined : new Slot(name);
    for (const name of this.#structure) slots[name] = p[name];
    const compiled = this.build(db, slots as P).compile();
    const names: Array<string | null> = [];
    const constants: unknown[] = [];
    for (const value of compiled.parameters) {
      names.push(value instanceof Slot ? value.name : null);
      constants.push(value instanceof Slot ? undefined : value);
    }
    const template = { sql: this.#text ? this.#text(compiled.sql) : compiled.sql, query: compiled.query, names, constants };
    this.#templates.set(key, template);
    return template;
  }

  /** The compiled statement for these parameters (built and compiled the first time its key is seen). */
  compile(db: AnyDb, params: P): CompiledQuery<O> {
    const key = this.#key(params);
    const template = this.#templates.get(key) ?? this.#template(db, params, key);
    const { names, constants } = template;
    const p = params as Record<string, unknown>;
    const parameters = new Array<unknown>(names.length);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      parameters[i] = name === null || name === undefined ? constants[i] : p[name];
    }
    return { sql: template.sql, query: template.query, parameters, queryId: QUERY_ID };
  }

  async execute(db: AnyDb, params: P): Promise<O[]> {
    return (await db.executeQuery(this.compile(db, params))).rows;
  }

  async executeTakeFirst(db: AnyDb, params: P): Promise<O | undefined> {
    return (await db.executeQuery(this.compile(db, params))).rows[0];
  }

  /**
   * A statement made from this one (a count, a page of ids), kept under `name`: `derive` receives
   * this shape's builder output, the database it is built on (to build this shape again with other
   * structure) and the parameters (placeholders for `values`, as they are for
   * `structure`); its own text is one per key of the combined parameters.
   */
  derive<Q extends object, O2>(
    name: string,
    options: ShapeParams<P & Q>,
    derive: (query: Compilable<O>, p: P & Q, db: AnyDb) => Compilable<O2>,
  ): QueryShape<P & Q, O2> {
    let shape = this.#derived.get(name) as QueryShape<P & Q, O2> | undefined;
    if (!shape) {
      shape = new QueryShape<P & Q, O2>(
        {
          values: [...this.#values, ...(options.values ?? [])] as Array<keyof (P & Q) & string>,
          structure: [...this.#structure, ...(options.structure ?? [])] as Array<keyof (P & Q) & string>,
          ...(options.text ? { text: options.text } : {}),
        },
        (db, p) => derive(this.build(db, p), p, db),
      );
      this.#derived.set(name, shape as unknown as QueryShape<P, unknown>);
    }
    return shape;
  }

  /** These parameters with this shape, for helpers that derive further statements (paging). */
  with(params: P): ShapedQuery<O> {
    return new ShapedQuery(this as unknown as QueryShape<object, O>, params);
  }
}

/** Runs of one compiled statement share this id: it only names queries for Kysely plugins, and the API has none. */
const QUERY_ID = { queryId: 'shaped' } as unknown as CompiledQuery['queryId'];

/** A shape with its parameters: what list helpers take to derive their counts and pages. */
export class ShapedQuery<O> {
  constructor(
    readonly shape: QueryShape<object, O>,
    readonly params: object,
  ) {}

  compile(db: AnyDb): CompiledQuery<O> {
    return this.shape.compile(db, this.params);
  }

  execute(db: AnyDb): Promise<O[]> {
    return this.shape.execute(db, this.params);
  }
}

/** A shape: `build` runs once per key (see the file's comment). */
export function queryShape<P extends object, O>(options: ShapeParams<P>, build: (db: AnyDb, p: P) => Compilable<O>): QueryShape<P, O> {
  return new QueryShape(options, build);
}
