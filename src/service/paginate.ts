// The service's list endpoints page by page (page from 1, totalResults), as one async iteration.

/** Walks pages from 1 until totalResults is reached or a page comes back empty. */
export async function* paginate<K extends string, T>(
  fetchPage: (page: number) => Promise<Record<K, T[]> & { totalResults: number }>,
  key: K,
): AsyncGenerator<T> {
  let seen = 0;
  for (let page = 1; ; page++) {
    const result = await fetchPage(page);
    const items = result[key];
    yield* items;
    seen += items.length;
    if (items.length === 0 || seen >= result.totalResults) return;
  }
}
