import type { Reader } from '../store/store.js';

/** D3: 1-indexed pages; the size has already been clamped by the query schema. */
export interface Page {
  page: number;
  pageSize: number;
}

export function limitOffset({ page, pageSize }: Page): { limit: number; offset: number } {
  return { limit: pageSize, offset: (page - 1) * pageSize };
}

/**
 * One page of a table's rows in creation order (seq), and how many rows match in all (totalResults).
 * `where` is fixed SQL with named parameters taken from `params`; an unused parameter is ignored.
 */
export function pageOfRows<T>(
  reader: Reader,
  table: string,
  where: string,
  params: Record<string, unknown>,
  page: Page,
): { rows: T[]; total: number } {
  const bound = { ...params, ...limitOffset(page) };
  const { n } = reader.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(bound) as {
    n: number;
  };
  const rows = reader.db
    .prepare(`SELECT * FROM ${table} WHERE ${where} ORDER BY seq LIMIT @limit OFFSET @offset`)
    .all(bound) as T[];
  return { rows, total: n };
}
