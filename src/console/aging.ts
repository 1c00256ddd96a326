import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry, OpenItem } from '../ledger/ledger-port.js';

// Aging of what is still owed: each open invoice (receivable) or bill (payable) falls in a bucket by the
// days since its document's entry date (the invoice or bill entry: the first entry that put it on Accounts
// Receivable or Accounts Payable), as of today in the books' time zone. Pure.

export const agingBuckets = ['0-30', '31-60', '61-90', '90+'] as const;
export type AgingBucket = (typeof agingBuckets)[number];
export type Side = 'receivable' | 'payable';

export interface AgedItem extends OpenItem {
  /** The document's entry date, YYYY-MM-DD; null when the books hold no entry for it (lines without a document). */
  documentDate: string | null;
  ageDays: number | null;
  bucket: AgingBucket | null;
  /** The invoice's number (the payment link's name) or the bill's, when the service could say. */
  documentName: string | null;
  /** The customer's or vendor's name, when the service could say. */
  counterpartyName: string | null;
}

const dayMs = 24 * 60 * 60 * 1000;

/** Whole days from `from` to `to` (both YYYY-MM-DD). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / dayMs);
}

export function bucketOf(days: number): AgingBucket {
  if (days <= 30) return '0-30';
  if (days <= 60) return '31-60';
  if (days <= 90) return '61-90';
  return '90+';
}

/** The date of the first live entry debiting Accounts Receivable (an invoice) or crediting Accounts Payable (a bill). */
export function documentDate(entries: readonly BookedEntry[], side: Side): string | null {
  const account = side === 'receivable' ? Accounts.AccountsReceivable : Accounts.AccountsPayable;
  const dates = entries
    .filter((e) => e.reverses === null)
    .filter((e) =>
      e.lines.some(
        (l) => l.account === account && (side === 'receivable' ? l.amountCents > 0 : l.amountCents < 0),
      ),
    )
    .map((e) => e.economicDate ?? e.date)
    .sort();
  return dates[0] ?? null;
}

export function aged(
  item: OpenItem,
  date: string | null,
  today: string,
  names: { documentName: string | null; counterpartyName: string | null },
): AgedItem {
  const ageDays = date === null ? null : Math.max(0, daysBetween(date, today));
  return {
    ...item,
    ...names,
    documentDate: date,
    ageDays,
    bucket: ageDays === null ? null : bucketOf(ageDays),
  };
}

export type AgingTotals = Record<AgingBucket, number> & { total: number; undated: number };

export function agingTotals(items: readonly AgedItem[]): AgingTotals {
  const totals: AgingTotals = { '0-30': 0, '31-60': 0, '61-90': 0, '90+': 0, total: 0, undated: 0 };
  for (const item of items) {
    totals.total += item.openCents;
    if (item.bucket) totals[item.bucket] += item.openCents;
    else totals.undated += item.openCents;
  }
  return totals;
}

/** Items whose invoice or bill id or number, or customer or vendor id or name, contains `query` (any case). */
export function matching(items: readonly AgedItem[], query: string): AgedItem[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [...items];
  return items.filter((item) =>
    [item.documentId, item.documentName, item.counterpartyId, item.counterpartyName].some((field) =>
      field?.toLowerCase().includes(q),
    ),
  );
}
