import type { Disbursement } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../chart-of-accounts.js';
import type { LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { UnmappableStateError } from '../errors.js';
import { debitCredit } from './debit-credit.js';

/**
 * The subset of a fetched Disbursement the books depend on; the account it is paid to (its last four digits)
 * only when payouts may land in the Payout Bank.
 */
export type DisbursementForBooks = Pick<
  Disbursement,
  'id' | 'status' | 'amountInCents' | 'createdAt' | 'paidAt'
> &
  Partial<Pick<Disbursement, 'accountNumberLastFour'>>;

export interface PayoutBookingOptions {
  /**
   * PAYOUT_BANK_ACCOUNTS: the last four digits of the bank accounts that are the Payout Bank. A payout paid
   * to one of them is received in Payout Bank; any other (and every payout when empty) in Operating Bank.
   * Fixed per deployment: changing it turns re-syncs of payouts already paid into conflicts (a resync books
   * them again).
   */
  payoutBankAccounts?: readonly string[];
}

/** The bank account a paid disbursement lands in: Payout Bank when the account it names is one. */
export function payoutBankOf(
  disbursement: Pick<DisbursementForBooks, 'accountNumberLastFour'>,
  options: PayoutBookingOptions = {},
): typeof Accounts.OperatingBank | typeof Accounts.PayoutBank {
  const lastFour = disbursement.accountNumberLastFour;
  return lastFour != null && (options.payoutBankAccounts ?? []).includes(lastFour)
    ? Accounts.PayoutBank
    : Accounts.OperatingBank;
}

export const disbursementEntryKinds = ['disbursement-pending', 'disbursement-paid'] as const;

/**
 * PENDING: Dr Payouts In Transit / Cr Processor Clearing. SUCCEEDED: that, plus Dr Operating Bank (Payout
 * Bank when the disbursement's account is one of PAYOUT_BANK_ACCOUNTS) / Cr Payouts In Transit. FAILED:
 * nothing (what was booked is reversed; the money is back at the service).
 * Fees were booked per payment (platformFeeInCents), and the payout amount is already net of them (decision “Disbursement statuses”).
 */
export function disbursementEntries(
  disbursement: DisbursementForBooks,
  options: PayoutBookingOptions = {},
): LedgerEntryInput[] {
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
      lines: debitCredit(payoutBankOf(disbursement, options), Accounts.PayoutsInTransit, amountInCents),
      links,
    });
  }
  return entries;
}
