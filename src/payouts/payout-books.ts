import { Accounts } from '../accounting/chart-of-accounts.js';
import type { BookedEntry } from '../accounting/entry.js';
import type { PayoutBooks } from './report-schema.js';

/** What the books hold for one disbursement: its entries' Payouts In Transit and Operating Bank lines. */
export function payoutBooks(entries: readonly BookedEntry[]): PayoutBooks {
  let inTransitCents = 0;
  let bankCents = 0;
  // Reversals are among the entries and carry negated lines, so summing everything nets them out.
  for (const entry of entries) {
    for (const line of entry.lines) {
      if (line.account === Accounts.PayoutsInTransit) inTransitCents += line.amountCents;
      else if (line.account === Accounts.OperatingBank) bankCents += line.amountCents;
    }
  }
  return { inTransitCents, bankCents };
}

/** What the books should hold for a disbursement of this status; undefined for a status booksync does not map. */
export function expectedPayoutBooks(status: string, amountCents: number): PayoutBooks | undefined {
  switch (status) {
    case 'PENDING':
      return { inTransitCents: amountCents, bankCents: 0 };
    case 'SUCCEEDED':
      return { inTransitCents: 0, bankCents: amountCents };
    case 'FAILED':
      return { inTransitCents: 0, bankCents: 0 };
    default:
      return undefined;
  }
}
