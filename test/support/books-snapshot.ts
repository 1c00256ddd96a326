import type { AccountName } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry, EntryLine } from '../../src/ledger/entry.js';
import type { LedgerPort } from '../../src/ledger/ledger-port.js';

/** What the books hold, in a form two ledgers can be compared by (no row ids, no booking timestamps). */
export interface BooksSnapshot {
  entries: Record<
    string,
    {
      date: string;
      description: string;
      lines: EntryLine[];
      reverses: string | null;
      reversedBy: string | null;
    }
  >;
  balances: Partial<Record<AccountName, number>>;
  totalDebitCents: number;
  balanced: boolean;
}

export function snapshotOf(
  entries: readonly BookedEntry[],
  balances: BooksSnapshot['balances'],
): BooksSnapshot {
  const byKey: BooksSnapshot['entries'] = {};
  for (const entry of entries) {
    byKey[entry.key] = {
      date: entry.date,
      description: entry.description,
      lines: [...entry.lines].sort((a, b) =>
        a.account === b.account ? a.amountCents - b.amountCents : a.account < b.account ? -1 : 1,
      ),
      reverses: entry.reverses,
      reversedBy: entry.reversedBy,
    };
  }
  let totalDebitCents = 0;
  let sum = 0;
  for (const cents of Object.values(balances)) {
    sum += cents ?? 0;
    if ((cents ?? 0) > 0) totalDebitCents += cents ?? 0;
  }
  return { entries: byKey, balances, totalDebitCents, balanced: sum === 0 };
}

/** The snapshot of a ledger now. */
export async function booksOf(ledger: Pick<LedgerPort, 'allEntries' | 'balances'>): Promise<BooksSnapshot> {
  const balances: BooksSnapshot['balances'] = {};
  for (const b of await ledger.balances()) balances[b.account] = b.balanceCents;
  return snapshotOf(await ledger.allEntries(), balances);
}
