import type { SelectQueryBuilder } from 'kysely';

export interface PageMeta {
  total: number;
  current_page: number;
  total_pages: number;
  limit: number;
}
/** The complaint list's meta, with the neighbouring pages. */
export interface LinkedPageMeta extends PageMeta {
  next_page: number | null;
  previous_page: number | null;
}

export function pageMeta(total: number, page: number, limit: number): PageMeta {
  return { total, current_page: page, total_pages: Math.ceil(total / limit), limit };
}

export function linkedPageMeta(total: number, page: number, limit: number): LinkedPageMeta {
  const meta = pageMeta(total, page, limit);
  return {
    ...meta,
    next_page: page < meta.total_pages ? page + 1 : null,
    previous_page: page > 1 ? Math.min(page - 1, Math.max(meta.total_pages, 1)) : null,
  };
}

/**
 * Runs one page of a filtered, ordered query and the count of all its rows.
 * `query` carries the joins, filters, selection and order; the count reuses its filters.
 */
export async function fetchPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: number,
  limit: number,
): Promise<{ rows: O[]; total: number }> {
  const counted = query
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll<number>().as('total'));
  const { total } = (await counted.executeTakeFirstOrThrow()) as { total: number | string };
  const rows = await query
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  return { rows, total: Number(total) };
}
