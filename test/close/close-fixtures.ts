import type { CloseInput } from '../../src/close/close-input.js';
import type { BookedEntry, EntryLinks } from '../../src/ledger/entry.js';

// What the certificate's tests build their inputs from: a period's close input with nothing at the service
// and nothing in the books but what a test gives, and booked entries from their lines.

/** A close of `period` as of `asOf`: no link, payment, payout, deposit, bill, entry or target unless given. */
export function closeInput(
  base: Pick<CloseInput, 'period' | 'asOf'> & Partial<Pick<CloseInput, 'timeZone'>>,
  over: Partial<CloseInput> = {},
): CloseInput {
  return {
    timeZone: 'UTC',
    links: [],
    payments: [],
    disbursements: [],
    checkDeposits: [],
    bills: [],
    billPayments: [],
    entries: [],
    receivables: [],
    payables: [],
    targets: null,
    ...base,
    ...over,
  };
}

let seq = 0;

/** A booked entry of these lines (account, signed cents), live unless `extra` says, numbered in the order made. */
export function bookedEntry(
  key: string,
  date: string,
  lines: [string, number][],
  links: EntryLinks,
  extra: Partial<BookedEntry> = {},
): BookedEntry {
  return {
    id: ++seq,
    key,
    date,
    description: key,
    lines: lines.map(([account, amountCents]) => ({ account, amountCents })) as BookedEntry['lines'],
    links,
    reverses: null,
    reversedBy: null,
    contentHash: key,
    createdAt: `${date}T00:00:00Z`,
    ...extra,
  };
}

/** The lines of Dr `debit` / Cr `credit` for `cents`. */
export const dr = (debit: string, credit: string, cents: number): [string, number][] => [
  [debit, cents],
  [credit, -cents],
];
