import type { Reader } from '../store/store.js';

/** Decision “Pagination”: 1-indexed pages; the size has already been clamped by the query schema. */
export interface Page {
  page: number;
  pageSize: number;
}

export function limitOffset({ page, pageSize }: Page): { limit: number; offset: number } {
  return { limit: pageSize, offset: (page - 1) * pageSize };
}

/**
 * One page of a table's rows in creation order (seq), and how many rows match in all (totalResults).
 * Each condition is fixed SQL with one `?` (`'status = ?'`); one whose value is undefined is an absent filter
 * and left out.
 */
export function pageOfRows<T>(
  reader: Reader,
  table: string,
  conditions: Record<string, unknown>,
  page: Page,
): { rows: T[]; total: number } {
  const present = Object.entries(conditions).filter(([, value]) => value !== undefined);
  const where = present.map(([condition]) => condition).join(' AND ');
  const params = present.map(([, value]) => value);
  const { limit, offset } = limitOffset(page);
  const { n } = reader.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(...params) as {
    n: number;
  };
  const rows = reader.db
    .prepare(`SELECT * FROM ${table} WHERE ${where} ORDER BY seq LIMIT ? OFFSET ?`)
    .all(...params, limit, offset) as T[];
  return { rows, total: n };
}
