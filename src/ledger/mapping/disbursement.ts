import type { Disbursement } from '../../service/schemas/index.js';
import { Accounts } from '../chart-of-accounts.js';
import type { LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { UnmappableStateError } from '../errors.js';
import { debitCredit } from './debit-credit.js';

/** The subset of a fetched Disbursement the books depend on. */
export type DisbursementForBooks = Pick<
  Disbursement,
  'id' | 'status' | 'amountInCents' | 'createdAt' | 'paidAt'
>;

export const disbursementEntryKinds = ['disbursement-pending', 'disbursement-paid'] as const;

/**
 * PENDING: Dr Payouts In Transit / Cr Processor Clearing. SUCCEEDED: that, plus Dr Operating Bank /
 * Cr Payouts In Transit. FAILED: nothing (what was booked is reversed; the money is back at the service).
 * Fees were booked per payment (platformFeeInCents), and the payout amount is already net of them (decision “Disbursement statuses”).
 */
export function disbursementEntries(disbursement: DisbursementForBooks): LedgerEntryInput[] {
  const { id, status, amountInCents } = disbursement;
  if (status === 'FAILED') return [];
  if (status !== 'PENDING' && status !== 'SUCCEEDED') {
    throw new UnmappableStateError(`disbursement ${id}: unknown status ${status}`);
  }
  if (amountInCents === 0) return [];
  const pendingDate = disbursement.createdAt ?? disbursement.paidAt;
  if (!pendingDate) throw new UnmappableStateError(`disbursement ${id}: neither createdAt nor paidAt`);
  const links = { disbursementId: id };
  const entries: LedgerEntryInput[] = [
    {
      key: entryKeys.disbursementPending(id),
      date: pendingDate,
      description: `Disbursement ${id} sent to the bank`,
      lines: debitCredit(Accounts.PayoutsInTransit, Accounts.ProcessorClearing, amountInCents),
      links,
    },
  ];
  if (status === 'SUCCEEDED') {
    entries.push({
      key: entryKeys.disbursementPaid(id),
      date: disbursement.paidAt ?? pendingDate,
      description: `Disbursement ${id} received by the bank`,
      lines: debitCredit(Accounts.OperatingBank, Accounts.PayoutsInTransit, amountInCents),
      links,
    });
  }
  return entries;
}
