import { Accounts } from '../chart-of-accounts.js';
import type { LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { dayBefore } from '../opening-balances.js';
import type { BillForBooks } from './bill.js';
import { type BillPaymentForBooks, billPaymentEntries } from './bill-payment.js';
import { businessDay } from './dates.js';
import { debitCredit } from './debit-credit.js';

// A bill still owed when the books open, as an accountant enters it: one opening document per bill
// (Dr Opening Balances / Cr Accounts Payable) for what it owed that day, under the bill's own key, so the
// payments from the opening day on settle it as they settle any bill, and last period's expense is never
// this period's. The service lists no bills: booksync learns a bill of last period when a payment of it
// arrives, and brings it in then.

/** Whether the bill was created before the books opened on `opensOn` (its business day). */
export function billBeforeOpening(bill: BillForBooks, opensOn: string, timeZone: string): boolean {
  return businessDay(bill.createdAt, timeZone, `bill ${bill.id} createdAt`) < opensOn;
}

/**
 * What the bill payment paid of the bill before `opensOn`: its amount when it was sent before that day and
 * has not failed (a failed payment paid nothing: the bill is owed again), else 0.
 */
export function payableBeforeOpening(
  billPayment: BillPaymentForBooks,
  opensOn: string,
  timeZone: string,
): number {
  return billPaymentEntries(billPayment, timeZone)
    .filter((e) => e.date < opensOn)
    .flatMap((e) => e.lines)
    .filter((l) => l.account === Accounts.AccountsPayable)
    .reduce((sum, l) => sum + l.amountCents, 0);
}

/**
 * The opening document of a bill owed when the books open on `opensOn`: `bill:{bill}` for what it owed
 * then, dated the day before. What it owed is its amount less what `billPayment` (the payment booksync
 * learned the bill from) paid of it before the opening: the service gives no list of a bill's payments,
 * so another payment sent before the opening is not seen. null when it owed nothing.
 */
export function openingBillEntry(
  bill: BillForBooks,
  opensOn: string,
  timeZone: string,
  billPayment: BillPaymentForBooks | null = null,
): LedgerEntryInput | null {
  const paid =
    billPayment && billPayment.billId === bill.id ? payableBeforeOpening(billPayment, opensOn, timeZone) : 0;
  const owed = bill.amountCents - paid;
  if (owed <= 0) return null;
  return {
    key: entryKeys.bill(bill.id),
    date: dayBefore(opensOn),
    description: `Opening balance of bill ${bill.id} from vendor ${bill.vendorId}, owed when the books opened on ${opensOn}`,
    lines: debitCredit(Accounts.OpeningBalances, Accounts.AccountsPayable, owed),
    links: { billId: bill.id, vendorId: bill.vendorId },
  };
}
