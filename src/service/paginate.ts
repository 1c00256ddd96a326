// The service's list endpoints page by page (page from 1, totalResults), as one async iteration.
import { MAX_PAGE_SIZE } from '@booksync/service-contract/schemas/index';

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

/** Every item of a list endpoint for one filter: pages of `pageSize`, the largest the service allows unless given (decision “Pagination”). */
export function everyItem<F extends { pageSize?: number }, K extends string, T>(
  list: (query: F & { page: number; pageSize: number }) => Promise<Record<K, T[]> & { totalResults: number }>,
  filter: F,
  key: K,
): AsyncGenerator<T> {
  const pageSize = filter.pageSize ?? MAX_PAGE_SIZE;
  return paginate((page) => list({ ...filter, pageSize, page }), key);
}
