// What the schemas of both ledger stores (migrations.ts for SQLite, postgres-migrations.ts for PostgreSQL)
// write alike: the link columns of entries, their partial indexes, and the refusal of a schema newer than
// the code. A migration's text never changes once released, so each passes the columns it had then.

/** The link columns of entries in the first schema of either store, in order (bill_id came later to SQLite). */
export const firstLinkColumns = [
  'payment_link_id',
  'payment_id',
  'customer_id',
  'disbursement_id',
  'check_deposit_id',
  'bill_payment_id',
  'external_payment_id',
  'debit_memo_id',
  'refund_id',
  'vendor_id',
] as const;

/** `<column> TEXT,` for each link column, one a line (inside CREATE TABLE entries). */
export function linkColumnsDdl(columns: readonly string[]): string {
  return columns.map((c) => `  ${c} TEXT,`).join('\n');
}

/** One partial index per link column, `entries_by_<column without _id>`, only over the rows that have one. */
export function linkIndexesDdl(columns: readonly string[]): string {
  return columns
    .map((c) => `CREATE INDEX entries_by_${c.replace(/_id$/, '')} ON entries (${c}) WHERE ${c} IS NOT NULL;`)
    .join('\n');
}

/** Refuses a database whose schema a newer booksync migrated. */
export function assertKnownSchemaVersion(current: number, known: number): void {
  if (current > known) {
    throw new Error(`ledger database schema version ${current} is newer than this code knows (${known})`);
  }
}
