import type { Bill } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../chart-of-accounts.js';
import type { LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { businessDay } from './dates.js';
import { debitCredit } from './debit-credit.js';

/** The subset of a fetched Bill the books depend on. */
export type BillForBooks = Pick<Bill, 'id' | 'vendorId' | 'amountCents' | 'createdAt'>;

export const billEntryKinds = ['bill'] as const;

/**
 * A vendor bill: Dr Bill Expenses / Cr Accounts Payable on its creation date, with the vendor and the bill
 * as dimensions, so "what does bill B still owe" is the payable balance of the bill's entries.
 */
export function billEntries(bill: BillForBooks, timeZone: string): LedgerEntryInput[] {
  if (bill.amountCents === 0) return [];
  return [
    {
      key: entryKeys.bill(bill.id),
      date: businessDay(bill.createdAt, timeZone, `bill ${bill.id} createdAt`),
      description: `Bill ${bill.id} from vendor ${bill.vendorId}`,
      lines: debitCredit(Accounts.BillExpenses, Accounts.AccountsPayable, bill.amountCents),
      links: { billId: bill.id, vendorId: bill.vendorId },
    },
  ];
}
