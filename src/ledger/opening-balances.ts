import { type AccountName, Accounts } from './chart-of-accounts.js';
import type { BookedEntry, LedgerEntryInput } from './entry.js';

// Opening Balances: a new installation imports the account's history since
// the day its books open. Objects settled before that day are not imported one by one; the money they left
// in flight (at the service, on the way to the bank, in checks) is one opening entry. From the day the books
// open, every sync follows one rule, so a webhook about an old object never books its old entries twice:
// an object that has no entry dated before the opening day keeps its old entries in Opening Balances and
// books only what is dated from that day on (a refund of an old payment, a memo on an old invoice).

/**
 * The accounts whose money an opening entry carries: money in flight. What reached the bank before the
 * books open is already in the business's books, and income and expense before it are last period's.
 * Unapplied Cash is the other side of a deposited check's money: a check in flight is credited there, and
 * what a customer still has to apply after the opening day is debited there.
 */
export const inFlightAccounts: readonly AccountName[] = [
  Accounts.ProcessorClearing,
  Accounts.PayoutsInTransit,
  Accounts.ChecksToDeposit,
  Accounts.OutgoingPaymentsClearing,
  Accounts.UnappliedCash,
];

/** The key of the opening entry of books opening on `opensOn`. */
export const openingEntryKey = (opensOn: string) => `opening-balances:${opensOn}`;

/** YYYY-MM-DD of the day before a YYYY-MM-DD day (UTC calendar). */
export function dayBefore(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

/**
 * An opening document: what a document (an invoice or a bill still owed when the books open) owed that day,
 * brought in against Opening Balances, dated the day before the opening like the opening entry. Not an import
 * of the document's history: its earlier entries stay in last period's books.
 */
export function isOpeningDocument(entry: Pick<BookedEntry, 'lines' | 'reverses'>): boolean {
  return entry.reverses === null && entry.lines.some((l) => l.account === Accounts.OpeningBalances);
}

/**
 * Whether an object's booked entries include one of its own dated before the books open: it was imported
 * (an opening document is not an import).
 */
export function bookedBeforeOpening(booked: readonly BookedEntry[], opensOn: string): boolean {
  return booked.some((e) => e.reverses === null && e.date < opensOn && !isOpeningDocument(e));
}

/**
 * What of an object's desired entries a sync may book (see above): all of them before any opening, or when
 * the object was imported (it has an entry dated before the opening); otherwise those dated from it on.
 */
export function bookableEntries(
  desired: readonly LedgerEntryInput[],
  booked: readonly BookedEntry[],
  opensOn: string | null,
): readonly LedgerEntryInput[] {
  if (opensOn === null || bookedBeforeOpening(booked, opensOn)) return desired;
  return desired.filter((e) => e.date >= opensOn);
}

/** Adds the in-flight lines of `entries` into `totals` (account -> cents); other lines are last period's. */
export function addInFlight(
  totals: Partial<Record<AccountName, number>>,
  entries: readonly LedgerEntryInput[],
) {
  for (const entry of entries) {
    for (const line of entry.lines) {
      if (!inFlightAccounts.includes(line.account)) continue;
      totals[line.account] = (totals[line.account] ?? 0) + line.amountCents;
    }
  }
}

/**
 * The opening entry: each in-flight account's money on the day the books open, against Opening Balances;
 * dated the day before. null when nothing was in flight (the books still open on the day: see LedgerPort).
 */
export function openingEntry(
  opensOn: string,
  totals: Partial<Record<AccountName, number>>,
): LedgerEntryInput | null {
  const lines = inFlightAccounts
    .filter((account) => (totals[account] ?? 0) !== 0)
    .map((account) => ({ account, amountCents: totals[account] as number }));
  const net = lines.reduce((sum, l) => sum + l.amountCents, 0);
  if (lines.length === 0) return null;
  if (net !== 0) lines.push({ account: Accounts.OpeningBalances, amountCents: -net });
  return {
    key: openingEntryKey(opensOn),
    date: dayBefore(opensOn),
    description: `Opening balances: money in flight when the books open on ${opensOn}`,
    lines,
    links: {},
  };
}
