/** D3: 1-indexed pages; the size has already been clamped by the query schema. */
export interface Page {
  page: number;
  pageSize: number;
}

export function limitOffset({ page, pageSize }: Page): { limit: number; offset: number } {
  return { limit: pageSize, offset: (page - 1) * pageSize };
}
