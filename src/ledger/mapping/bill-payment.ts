import type { BillPayment } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../chart-of-accounts.js';
import type { LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { UnmappableStateError } from '../errors.js';
import { businessDay } from './dates.js';
import { debitCredit } from './debit-credit.js';

/** The subset of a fetched BillPayment the books depend on. */
export type BillPaymentForBooks = Pick<
  BillPayment,
  'id' | 'billId' | 'vendorId' | 'amountCents' | 'status' | 'sentAt' | 'completedAt' | 'deliveryMethodType'
>;

export const billPaymentEntryKinds = ['bill-payment-sent', 'bill-payment-paid'] as const;

/**
 * Sent (sentAt set, or already SUCCEEDED): Dr Accounts Payable / Cr Outgoing Payments Clearing.
 * The money leaves the bank (Dr Outgoing Payments Clearing / Cr Operating Bank, `bill-payment-paid`):
 * - a check: when the vendor deposits it (SUCCEEDED, completedAt);
 * - an ACH payment or a wire: when it is sent, since the business's account is debited then (spec 6.5:
 *   bill_payment.failed is "the debit from the funding source was returned", so the debit happened at the
 *   send; bill_payment.succeeded only says the vendor received the funds), even while PENDING. A payment
 *   sent 30 January and succeeding 3 February leaves January's bank lower by its amount.
 * FAILED (returned, failed, cancelled, decision “Bill payments”): nothing, so what was booked is reversed and the bill is owed again
 * (and, for an ACH debit returned, the money is back in the bank).
 */
export function billPaymentEntries(billPayment: BillPaymentForBooks, timeZone: string): LedgerEntryInput[] {
  const { id, status, amountCents } = billPayment;
  if (status === 'FAILED') return [];
  if (status !== 'PENDING' && status !== 'SUCCEEDED') {
    throw new UnmappableStateError(`bill payment ${id}: unknown status ${status}`);
  }
  if (amountCents === 0) return [];
  const sentAt = billPayment.sentAt ?? (status === 'SUCCEEDED' ? billPayment.completedAt : null);
  if (!sentAt) {
    if (status === 'SUCCEEDED') throw new UnmappableStateError(`bill payment ${id}: SUCCEEDED without dates`);
    return [];
  }
  const links = { billPaymentId: id, vendorId: billPayment.vendorId, billId: billPayment.billId };
  const entries: LedgerEntryInput[] = [
    {
      key: entryKeys.billPaymentSent(id),
      date: businessDay(sentAt, timeZone, `bill payment ${id} sentAt`),
      description: `Bill payment ${id} sent`,
      lines: debitCredit(Accounts.AccountsPayable, Accounts.OutgoingPaymentsClearing, amountCents),
      links,
    },
  ];
  const debitedAtSend = billPayment.deliveryMethodType !== 'CHECK';
  if (status === 'SUCCEEDED' || debitedAtSend) {
    const debitedAt = debitedAtSend ? sentAt : (billPayment.completedAt ?? sentAt);
    entries.push({
      key: entryKeys.billPaymentPaid(id),
      date: businessDay(
        debitedAt,
        timeZone,
        `bill payment ${id} ${debitedAtSend ? 'sentAt' : 'completedAt'}`,
      ),
      description: `Bill payment ${id} paid`,
      lines: debitCredit(Accounts.OutgoingPaymentsClearing, Accounts.OperatingBank, amountCents),
      links,
    });
  }
  return entries;
}
