// What the schemas of both ledger stores (migrations.ts for SQLite, postgres-migrations.ts for PostgreSQL)
// write alike: the link columns of entries, their partial indexes, and the refusal of a schema newer than
// the code, and the target index table. A migration's text never changes once released, so each passes the columns it had then.

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

/**
 * The target index (per accounting target, what became of each entry) with its indexes: SQLite's (INTEGER
 * ids, a STRICT table) and PostgreSQL's (BIGINT ids).
 */
export function targetIndexDdl(options: { entryId: 'INTEGER' | 'BIGINT'; strict: boolean }): string {
  return `CREATE TABLE target_index (
  target TEXT NOT NULL,
  entry_id ${options.entryId} NOT NULL REFERENCES entries (id),
  entry_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'PUSHED', 'FAILED', 'SKIPPED')),
  remote_ids TEXT,
  content_hash TEXT NOT NULL,
  reason TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (target, entry_id)
)${options.strict ? ' STRICT' : ''};
CREATE INDEX target_index_by_status ON target_index (target, status, entry_id);
CREATE UNIQUE INDEX target_index_by_key ON target_index (target, entry_key);`;
}

/**
 * Write-ahead push attempts (both stores): target_index.attempted_by is the lease of the attempt that marked
 * the entry before writing it to the target (NULL: no attempt ever wrote it); target_leases the latest lease
 * per target; target_write_ahead the last entry id booked before the marks existed (0 on a new ledger).
 */
export function writeAheadDdl(options: { entryId: 'INTEGER' | 'BIGINT'; strict: boolean }): string {
  const strict = options.strict ? ' STRICT' : '';
  return `ALTER TABLE target_index ADD COLUMN attempted_by ${options.entryId};
CREATE TABLE target_leases (
  target TEXT PRIMARY KEY,
  lease ${options.entryId} NOT NULL CHECK (lease > 0)
)${strict};
CREATE TABLE target_write_ahead (
  since_entry_id ${options.entryId} NOT NULL
)${strict};
INSERT INTO target_write_ahead (since_entry_id) SELECT coalesce(max(id), 0) FROM entries;`;
}

/**
 * The push attempts still in flight (both stores): target_index.marked_at is when the attempt named by
 * attempted_by marked the entry, cleared once that attempt ended (returned or failed). A mark still set is a
 * write that may be on its way to the target (an attempt timed out and still running, or killed): a later
 * attempt waits for it to end, or for the longest a request can take, before it looks the entry up.
 */
export const inFlightMarksDdl = 'ALTER TABLE target_index ADD COLUMN marked_at TEXT;';

/**
 * The company each cloud target's index was built against (both stores): QuickBooks' realm id, Xero's tenant
 * id. What the index records as pushed is in that company only; the push refuses to use the index for another
 * (TargetIndexStore.lease). `previous_company_id` and `since` say which company it replaced and when (a
 * `targets connect --switch-company`); the replaced company's rows are kept under another target name.
 */
export function targetCompaniesDdl(options: { strict: boolean }): string {
  return `CREATE TABLE target_companies (
  target TEXT PRIMARY KEY,
  company_id TEXT NOT NULL CHECK (length(company_id) > 0),
  since TEXT NOT NULL,
  previous_company_id TEXT
)${options.strict ? ' STRICT' : ''};`;
}

/** Refuses a database whose schema a newer booksync migrated. */
export function assertKnownSchemaVersion(current: number, known: number): void {
  if (current > known) {
    throw new Error(`ledger database schema version ${current} is newer than this code knows (${known})`);
  }
}
