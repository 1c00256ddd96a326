import type { AccountName } from './chart-of-accounts.js';
import {
  type BookedEntry,
  type EntryLine,
  type EntryLinks,
  type LedgerEntryInput,
  type LinkField,
  linkFields,
  normalizeLinks,
} from './entry.js';
import { LedgerValidationError } from './errors.js';

// How an entry is stored as rows, the same in both ledger stores (SQLite, PostgreSQL): the columns of
// entries and lines, the statements both run as they are, and a stored row back into a BookedEntry. Pure,
// no driver: each store reads its rows its own way and hands them here.

/** The entries column that holds each link. */
export const linkColumns: Record<LinkField, string> = {
  paymentLinkId: 'payment_link_id',
  paymentId: 'payment_id',
  customerId: 'customer_id',
  disbursementId: 'disbursement_id',
  checkDepositId: 'check_deposit_id',
  billPaymentId: 'bill_payment_id',
  externalPaymentId: 'external_payment_id',
  debitMemoId: 'debit_memo_id',
  refundId: 'refund_id',
  vendorId: 'vendor_id',
  billId: 'bill_id',
  depositSlipId: 'deposit_slip_id',
};

/** The link fields an entriesFor filter names, in linkFields order, and their values; at least one. */
export function linkFilter(filter: EntryLinks): { fields: LinkField[]; values: string[] } {
  const links = normalizeLinks(filter);
  const fields = linkFields.filter((f) => links[f] !== undefined);
  if (fields.length === 0) throw new LedgerValidationError('entriesFor needs at least one link field');
  return { fields, values: fields.map((f) => links[f] as string) };
}

/** `e.<column> = <placeholder>` for each field, ANDed; `placeholder(i)` is the store's i-th parameter. */
export function linkWhere(fields: readonly LinkField[], placeholder: (i: number) => string): string {
  return fields.map((f, i) => `e.${linkColumns[f]} = ${placeholder(i)}`).join(' AND ');
}

/** The columns an entry is read with, from `entries e LEFT JOIN entries r ON r.reverses = e.key`. */
export const entryColumns = `e.id, e.key, e.date, e.description, e.reverses, e.content_hash, e.created_at,
  e.economic_date, r.key AS reversed_by, ${linkFields.map((f) => `e.${linkColumns[f]}`).join(', ')}`;

/** Each entry with the entry that reverses it, if any. */
export const entryWithReversal = 'entries e LEFT JOIN entries r ON r.reverses = e.key';

/** Debits and credits per account, over every line. */
export const accountSumsQuery = `SELECT account,
         coalesce(sum(CASE WHEN amount_cents > 0 THEN amount_cents END), 0) AS debit,
         coalesce(sum(CASE WHEN amount_cents < 0 THEN -amount_cents END), 0) AS credit
       FROM lines GROUP BY account`;

/** The columns an entry is inserted with, in the order of `entryValues`. */
export const entryInsertColumns: readonly string[] = [
  'key',
  'date',
  'description',
  'reverses',
  'content_hash',
  'created_at',
  'line_count',
  'economic_date',
  ...linkFields.map((f) => linkColumns[f]),
];

/** An entry's values for `entryInsertColumns`, in that order. */
export function entryValues(
  entry: LedgerEntryInput,
  booked: { reverses: string | null; contentHash: string; createdAt: string; economicDate: string | null },
): unknown[] {
  const links = entry.links ?? {};
  return [
    entry.key,
    entry.date,
    entry.description,
    booked.reverses,
    booked.contentHash,
    booked.createdAt,
    entry.lines.length,
    booked.economicDate,
    ...linkFields.map((f) => links[f] ?? null),
  ];
}

/** An entry row stored, as `entryColumns` reads it (the id as the store's driver gives it). */
export interface StoredEntryRow {
  key: string;
  date: string;
  description: string;
  reverses: string | null;
  content_hash: string;
  created_at: string;
  economic_date: string | null;
  reversed_by: string | null;
  [column: string]: unknown;
}

/** What a stored line reads back as: memo only when there is one. */
export function lineFromRow(account: string, amountCents: number, memo: string | null): EntryLine {
  const line: EntryLine = { account: account as AccountName, amountCents };
  if (memo !== null) line.memo = memo;
  return line;
}

/** A stored entry row and its lines, as booked. */
export function entryFromRow(row: StoredEntryRow, id: number, lines: EntryLine[]): BookedEntry {
  const links: EntryLinks = {};
  for (const f of linkFields) {
    const value = row[linkColumns[f]];
    if (typeof value === 'string') links[f] = value;
  }
  return {
    ...(typeof row.economic_date === 'string' ? { economicDate: row.economic_date } : {}),
    id,
    key: row.key,
    date: row.date,
    description: row.description,
    lines,
    links,
    reverses: row.reverses,
    reversedBy: row.reversed_by,
    contentHash: row.content_hash,
    createdAt: row.created_at,
  };
}
