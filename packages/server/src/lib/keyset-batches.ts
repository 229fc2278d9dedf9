import type { SelectQueryBuilder } from 'kysely';

/** Rows read per query of an export. */
export const EXPORT_BATCH = 1000;

/**
 * Reads the ids of a filtered base-table query in id order, one batch at a time (keyset: `id > last
 * id seen`), and yields the rows `load` joins for each batch (in id order).
 * Each batch is a short query of its own, so an export of a million rows never holds them in
 * memory, nor a connection or a transaction for the length of the download, on PostgreSQL as on
 * the single-connection embedded database.
 */
export async function* keysetBatches<DB, TB extends keyof DB, Row>(
  ids: SelectQueryBuilder<DB, TB, { id: number }>,
  idColumn: string,
  load: (ids: number[]) => Promise<Row[]>,
  batch = EXPORT_BATCH,
): AsyncGenerator<Row[]> {
  let last = 0;
  for (;;) {
    const page = await ids
      .clearOrderBy()
      .where(idColumn as never, '>', last as never)
      .orderBy(idColumn as never)
      .limit(batch)
      .execute();
    if (page.length > 0) yield await load(page.map((r) => r.id));
    if (page.length < batch) return;
    last = page[page.length - 1]!.id;
  }
}
