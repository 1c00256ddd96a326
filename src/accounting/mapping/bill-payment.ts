import type { BillPayment } from '../../service/schemas/index.js';
import { Accounts } from '../chart-of-accounts.js';
import type { LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { UnmappableStateError } from '../errors.js';
import { businessDay } from './dates.js';

/** The subset of a fetched BillPayment the books depend on. */
export type BillPaymentForBooks = Pick<
  BillPayment,
  'id' | 'billId' | 'vendorId' | 'amountCents' | 'status' | 'sentAt' | 'completedAt'
>;

export const billPaymentEntryKinds = ['bill-payment-sent', 'bill-payment-paid'] as const;

/**
 * Sent (sentAt set, or already SUCCEEDED): Dr Accounts Payable / Cr Outgoing Payments Clearing.
 * SUCCEEDED (check deposited by the vendor, ACH succeeded): Dr Outgoing Payments Clearing / Cr Operating Bank.
 * FAILED (returned, failed, cancelled, D29): nothing, so what was booked is reversed and the bill is owed again.
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
      lines: [
        { account: Accounts.AccountsPayable, amountCents: amountCents },
        { account: Accounts.OutgoingPaymentsClearing, amountCents: -amountCents },
      ],
      links,
    },
  ];
  if (status === 'SUCCEEDED') {
    entries.push({
      key: entryKeys.billPaymentPaid(id),
      date: businessDay(billPayment.completedAt ?? sentAt, timeZone, `bill payment ${id} completedAt`),
      description: `Bill payment ${id} paid`,
      lines: [
        { account: Accounts.OutgoingPaymentsClearing, amountCents: amountCents },
        { account: Accounts.OperatingBank, amountCents: -amountCents },
      ],
      links,
    });
  }
  return entries;
}
