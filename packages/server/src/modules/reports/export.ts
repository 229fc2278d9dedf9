import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

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
