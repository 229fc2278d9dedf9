/**
 * PATCH pg: result rows built by one compiled object literal per statement (`new Function`),
 * instead of pg's per-row copy; queries built without pg's per-query copy of their config.
 *
 * What it changes: db/connect.ts sends each statement as a query made by `arrayRowsQuery`: a pg
 * Query built from its text and values (pg's string form) with its callback, then named and set to
 * return rows as arrays (pg's own `rowMode: 'array'` parser, `_parseRowAsArray`, which parses each
 * value with the same type parsers) on the result object the constructor made (`_result`). The
 * array rows of every statement with parameters or a name are then made into objects by
 * `rowsToObjects`: a function holding one object literal of the statement's columns, generated once
 * per statement text and column list, so every row of a statement gets the same hidden class,
 * built in a few instructions per field. The objects are what pg would have returned: the same own
 * properties, in the same order, with the same values (a repeated column name keeps its last value,
 * as pg's rows do).
 * Why a patch: it works around how pg builds rows internally (`Result#parseRow` spreads a prebuilt
 * empty object, then sets the fields one by one). That spread is a single site in pg's code for
 * every statement the API sends: with more than a few result shapes it turns megamorphic, and V8
 * copies each row through its generic property-definition runtime (`SetDataProperties`,
 * `CreateDataProperty`, `CloneObjectIC_Slow`). It also generates code at run time. pg's public way
 * to ask for array rows and a name, a query config object (`{ text, values, name, rowMode }`), is
 * copied by pg on every query through `Object.getOwnPropertyDescriptors` / `defineProperties`:
 * about 11 us per query on Node 20, against 0.6-1.7 us for the string form and the two properties
 * set here (a loop of 300,000 constructions, this 2-core machine): more than the row builder saves.
 * An array query's result also skips the part of pg's `addFields` that only object rows use
 * (`addArrayFields`): pg builds an empty object of the columns for every statement, a keyed store
 * per column into a dictionary and a spread, 1-2% of the server's CPU on a cached statistics answer
 * (perf, Node 24).
 * Measured gain: 1.367M -> 1.319M machine instructions per request on a page of ten customers on
 * PostgreSQL (callgrind on the server's main thread; pg's copy was about 96,000 of them), 4-7% less
 * CPU per request after a mixed warm-up.
 * Checked against: pg 8.16-8.23 (`CHECKED`); test/patches/pg-row-builder.test.ts fails when the
 * installed version leaves that range, when pg's rows are no longer built by that spread (the
 * patch may then be dropped), when pg's `addFields` sets more than fields, parsers and that empty
 * object, or when array rows and pg's objects stop agreeing.
 */

/** The versions this patch was checked against: `from` inclusive, `below` exclusive. */
export const CHECKED = { package: 'pg', from: '8.16.0', below: '9.0.0' } as const;

import pg from 'pg';

/** What this patch sets on a pg Query (not in its type declarations): its name, its result under construction. */
interface QueryInternals {
  name?: string;
  _result: ResultInternals;
}

/** pg's Result under construction, as `addFields` and the array row parser use it. */
interface ResultInternals {
  rowAsArray: boolean;
  parseRow: unknown;
  _parseRowAsArray: unknown;
  addFields: (fields: ColumnDescription[]) => void;
  fields: ColumnDescription[];
  _parsers: unknown[] | undefined;
  _types: { getTypeParser: (oid: number, format: string) => unknown } | undefined;
}

/** What pg's row description gives per column (pg-protocol's Field): what `addFields` reads. */
interface ColumnDescription {
  name: string;
  dataTypeID: number;
  format?: 'text' | 'binary';
}

/**
 * pg's `Result#addFields` without its last step: pg also builds, for every statement, an empty
 * object of the column names (a keyed store per column into a dictionary, then a spread) that
 * only its object rows use. Array rows read `fields` and `_parsers` alone, so an array query's
 * result takes this instead; the same type parsers, from the query's types when it has its own.
 */
function addArrayFields(this: ResultInternals, fields: ColumnDescription[]): void {
  this.fields = fields;
  const types = this._types ?? pg.types;
  const parsers = new Array(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    parsers[i] = types.getTypeParser(field.dataTypeID, field.format || 'text');
  }
  this._parsers = parsers;
}

/** pg's Query with the callback its constructor takes (declared with a narrower callback type). */
const CallbackQuery = pg.Query as unknown as new (
  text: string,
  values: unknown[],
  callback: (error: Error | null, result: unknown) => void,
) => pg.Query;

/**
 * A pg Query (a submittable for `client.query(query)`) of `text` and `values` that calls
 * `callback`, sent under `name` when not null, with its rows as arrays when `arrays`.
 */
export function arrayRowsQuery(
  text: string,
  values: unknown[],
  name: string | null,
  arrays: boolean,
  callback: (error: Error | null, result: unknown) => void,
): pg.Query {
  const query = new CallbackQuery(text, values, callback);
  const internals = query as unknown as QueryInternals;
  if (name !== null) internals.name = name;
  if (arrays) {
    internals._result.rowAsArray = true;
    internals._result.parseRow = internals._result._parseRowAsArray;
    internals._result.addFields = addArrayFields;
  }
  return query;
}

/** What this module needs of a pg column description. */
export interface FieldDescription {
  name: string;
}

type Build = (values: unknown[]) => Record<string, unknown>;

interface Shape {
  names: string[];
  build: Build;
}

/** Statement texts remembered with their shapes (the oldest forgotten first beyond this). */
export const REMEMBERED_SHAPES = 2000;

const shapes = new Map<string, Shape>();

/** A name an object literal cannot hold as a plain own data property. */
const SPECIAL = '__proto__';

function compile(names: string[]): Build {
  if (names.includes(SPECIAL)) {
    // A literal `"__proto__": x` would set the prototype: such rows are built property by property.
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) {
        Object.defineProperty(row, names[i]!, { value: values[i], writable: true, enumerable: true, configurable: true });
      }
      return row;
    };
  }
  // Column names are data: JSON.stringify quotes and escapes each one as a property key.
  const body = `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`;
  return new Function('v', body) as Build;
}

function sameNames(names: string[], fields: FieldDescription[]): boolean {
  if (names.length !== fields.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== fields[i]!.name) return false;
  return true;
}

/** The row builder of `text` for these columns (compiled once per statement and column list). */
function shapeOf(text: string, fields: FieldDescription[]): Build {
  const known = shapes.get(text);
  if (known !== undefined && sameNames(known.names, fields)) return known.build;
  const names = fields.map((f) => f.name);
  const shape = { names, build: compile(names) };
  if (known === undefined && shapes.size >= REMEMBERED_SHAPES) shapes.delete(shapes.keys().next().value as string);
  shapes.set(text, shape);
  return shape.build;
}

/** Turns the array rows of one statement's result into objects keyed by column name, in place. */
export function rowsToObjects(text: string, result: { rows: unknown[]; fields: FieldDescription[] }): void {
  const { rows } = result;
  if (rows.length === 0) return;
  const build = shapeOf(text, result.fields);
  for (let i = 0; i < rows.length; i++) rows[i] = build(rows[i] as unknown[]);
}
