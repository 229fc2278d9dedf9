/** One page of a list operation's `result`. */
export interface Page<T> {
  data: T[];
  meta: { current_page: number; total_pages: number; total: number; limit: number; next_cursor?: string | null };
}

/**
 * Iterates every item of a paged list, fetching pages one after another. A list that hands out
 * `meta.next_cursor` is followed by its cursor (constant cost at any depth, no offset cap), one
 * that does not by page number:
 * `for await (const t of paginate((page, cursor) => api.GET('/trade/transports', { params: { query: { page, cursor, limit: 100 } } }).then(unwrap)))`.
 */
export async function* paginate<T>(fetchPage: (page: number, cursor?: string) => Promise<Page<T>>, firstPage = 1): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (let page = firstPage; ; page += 1) {
    const { data, meta } = await fetchPage(page, cursor);
    yield* data;
    if (data.length === 0) return;
    if (meta.next_cursor !== undefined) {
      // A cursor list: it ends where it hands out no further cursor.
      if (!meta.next_cursor) return;
      cursor = meta.next_cursor;
    } else if (page >= meta.total_pages) return;
  }
}
