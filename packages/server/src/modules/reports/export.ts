import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

export interface CsvColumn<O> {
  header: string;
  value: (row: O) => string | number | null | undefined;
  /** A number column: its values stay numbers (`-5` is minus five), never neutralised as text. */
  numeric?: true;
}

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP, CSV Injection): `=`,
 * `+`, `-`, `@`, tab and carriage return, the line feed, and the full-width forms of the first
 * four, which some spreadsheets normalise to them.
 */
const FORMULA_START = /^[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/;
/** A cell as `neutralise` leaves it: quoted by the writer (`quoted_match`). */
const NEUTRALISED = /^'[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/;
const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/**
 * The text of one cell. A text cell starting like a formula gets a leading single quote (and is
 * written quoted): spreadsheets then show it as text instead of evaluating it. A number column's
 * values are written as they are, unless a value is not a number after all.
 */
export function neutralise(value: string | number | null | undefined, numeric = false): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || (numeric && NUMBER.test(value))) return value;
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * The CSV stream of an export: csv-stringify writes the header and quotes fields, and it pulls
 * the next batch only when the client has read the previous one (backpressure through pipe).
 */
export function csvStream<O extends { id: number }>(batches: AsyncGenerator<O[]>, columns: CsvColumn<O>[]): Readable {
  const records = Readable.from(
    (async function* () {
      for await (const rows of batches) {
        for (const row of rows) yield columns.map((c) => neutralise(c.value(row), c.numeric));
      }
    })(),
  );
  const csv = stringify({ header: true, columns: columns.map((c) => c.header), bom: false, quoted_match: NEUTRALISED });
  records.on('error', (error) => csv.destroy(error));
  return records.pipe(csv);
}
