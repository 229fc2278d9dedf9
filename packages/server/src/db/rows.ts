/**
 * Result rows built by one compiled object literal per statement, instead of pg's per-row copy.
 *
 * pg builds each row by spreading a prebuilt empty object and then setting its fields one by one.
 * That spread is a single site in pg's code for every statement the API sends: with more than a
 * few result shapes it turns megamorphic, and V8 then copies each row through its generic
 * property-definition runtime (`SetDataProperties`, `CreateDataProperty`, `CloneObjectIC_Slow`:
 * about 96,000 machine instructions per page of ten customers, counted with callgrind, a tenth of
 * the whole request). Here pg is asked for rows as arrays (its own `rowMode: 'array'`, which
 * parses each value with the same type parsers), and each statement's rows are then made by a
 * function holding one object literal of its columns: every row of a statement gets the same
 * hidden class, built in a few instructions per field.
 *
 * The objects are what pg would have returned: the same own properties, in the same order, with
 * the same values (a repeated column name keeps its last value, as pg's rows do).
 */

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
