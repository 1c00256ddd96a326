import type { AccountName } from './chart-of-accounts.js';
import type { BookedEntry, EntryLine } from './entry.js';

// What is booked for one object (a payment link, a payment, a disbursement...), in the shape a workflow
// query or a reconciliation report shows: each entry with its status, and the net effect per account.

export type EntryStatus = 'live' | 'reversed' | 'reversal';

export interface BookedItem {
  key: string;
  date: string;
  /** The entry's own date when it was booked on the first open day after a closed period. */
  economicDate?: string;
  description: string;
  status: EntryStatus;
  /** The reversing entry's key when reversed; the reversed key for a reversal. */
  related: string | null;
  lines: EntryLine[];
}

export interface BookingReport {
  items: BookedItem[];
  /** Keys of entries currently in force (booked and not reversed, reversals excluded). */
  liveKeys: string[];
  /** Net signed cents per account over every entry (reversals cancel what they reverse); zeros omitted. */
  netByAccount: Partial<Record<AccountName, number>>;
}

export function bookingReport(entries: readonly BookedEntry[]): BookingReport {
  const net = new Map<AccountName, number>();
  const items = entries.map((e): BookedItem => {
    for (const l of e.lines) net.set(l.account, (net.get(l.account) ?? 0) + l.amountCents);
    const status: EntryStatus =
      e.reverses !== null ? 'reversal' : e.reversedBy !== null ? 'reversed' : 'live';
    return {
      key: e.key,
      date: e.date,
      ...(e.economicDate ? { economicDate: e.economicDate } : {}),
      description: e.description,
      status,
      related: e.reverses ?? e.reversedBy,
      lines: e.lines,
    };
  });
  return {
    items,
    liveKeys: items.filter((i) => i.status === 'live').map((i) => i.key),
    netByAccount: Object.fromEntries([...net].filter(([, cents]) => cents !== 0)),
  };
}
