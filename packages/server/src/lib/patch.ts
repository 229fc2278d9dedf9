/** For each field of a request body `B`, the column of table `T` it writes (declare maps `as const satisfies ColumnsOf<B, T>`). */
export type ColumnsOf<B, T = Record<string, unknown>> = { readonly [K in keyof B]?: keyof T & string };

/** The column values of the fields sent: `null` stays (it clears), a field not sent is left out. */
export type SentColumns<B, M extends ColumnsOf<B>> = {
  -readonly [K in keyof M & keyof B as M[K] & string]?: Exclude<B[K], undefined>;
};

/** The columns a PATCH body changes, named by `columns` (field -> column). */
export function sentColumns<B extends object, const M extends ColumnsOf<B>>(body: B, columns: M): SentColumns<B, M> {
  const values: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(columns) as [string, string][]) {
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined) values[column] = value;
  }
  return values as SentColumns<B, M>;
}
