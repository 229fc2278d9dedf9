/** One page of a list operation's `result`. */
export interface Page<T> {
  data: T[];
  meta: { current_page: number; total_pages: number; total: number; limit: number };
}

/**
 * Iterates every item of a paged list, fetching pages one after another:
 * `for await (const t of paginate((page) => api.GET('/trade/transports', { params: { query: { page, limit: 100 } } }).then(unwrap)))`.
 */
export async function* paginate<T>(fetchPage: (page: number) => Promise<Page<T>>, firstPage = 1): AsyncGenerator<T> {
  for (let page = firstPage; ; page += 1) {
    const { data, meta } = await fetchPage(page);
    yield* data;
    if (page >= meta.total_pages || data.length === 0) return;
  }
}
