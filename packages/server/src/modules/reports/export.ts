import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { SelectQueryBuilder } from 'kysely';

/** Rows read per query of an export. */
export const EXPORT_BATCH = 1000;

/**
 * Reads a filtered list query in id order, one batch at a time (keyset: `id > last id seen`).
 * Each batch is a short query of its own, so an export of a million rows never holds them in
 * memory, nor a connection or a transaction for the length of the download, on PostgreSQL as on
 * the single-connection embedded database.
 */
export async function* keysetBatches<DB, TB extends keyof DB, O extends { id: number }>(
  query: SelectQueryBuilder<DB, TB, O>,
  idColumn: string,
  batch = EXPORT_BATCH,
): AsyncGenerator<O[]> {
  let last = 0;
  for (;;) {
    const rows = await query
      .clearOrderBy()
      .where(idColumn as never, '>', last as never)
      .orderBy(idColumn as never)
      .limit(batch)
      .execute();
    if (rows.length > 0) yield rows;
    if (rows.length < batch) return;
    last = rows[rows.length - 1]!.id;
  }
}

export interface CsvColumn<O> {
  header: string;
  value: (row: O) => string | number | null | undefined;
}

/**
 * The CSV stream of an export: csv-stringify writes the header and quotes fields, and it pulls
 * the next batch only when the client has read the previous one (backpressure through pipe).
 */
export function csvStream<O extends { id: number }>(batches: AsyncGenerator<O[]>, columns: CsvColumn<O>[]): Readable {
  const records = Readable.from(
    (async function* () {
      for await (const rows of batches) {
        for (const row of rows) yield columns.map((c) => c.value(row) ?? '');
      }
    })(),
  );
  const csv = stringify({ header: true, columns: columns.map((c) => c.header), bom: false });
  records.on('error', (error) => csv.destroy(error));
  return records.pipe(csv);
}
