import type { TestApp } from './app.js';

/** The ids of a page's items, in the order answered: from the body of a list answer, or from the answer. */
export const idsIn = (body: { result: { data: { id: number }[] } }): number[] => body.result.data.map((item) => item.id);
export const idsOf = (res: { body: { result: { data: { id: number }[] } } }): number[] => idsIn(res.body);

let counter = 0;

/** A name no other test of the run uses: `prefix`, a counter and a random tail, joined by `separator`. */
export function uniqueName(prefix: string, separator = ' '): string {
  counter += 1;
  return [prefix, counter, Math.random().toString(36).slice(2, 6)].join(separator);
}

/** Tables of configuration lists whose names are unique whatever their case. */
type NamedTable = 'categories' | 'tags' | 'vehicle_types' | 'complaint_types';

/** The rows of a configuration list whose name equals `name` whatever its case (what the uniqueness rule compares). */
export const rowsNamed = (t: TestApp, table: NamedTable, name: string) =>
  t.db
    .selectFrom(table)
    .selectAll()
    .where((eb) => eb.fn('lower', ['name']), '=', name.toLowerCase())
    .execute();
