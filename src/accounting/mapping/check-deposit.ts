import type { CheckDeposit } from '../../service/schemas/index.js';
import { Accounts } from '../chart-of-accounts.js';
import type { LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { UnmappableStateError } from '../errors.js';
import { businessDay } from './dates.js';
import type { ExternalPaymentForBooks } from './payment-link.js';

/** The subset of a fetched CheckDeposit the books depend on. */
export type CheckDepositForBooks = Pick<CheckDeposit, 'id' | 'status' | 'clearedAt'> & {
  applications: readonly ExternalPaymentForBooks[];
};

export const checkDepositEntryKinds = ['check-application', 'check-cleared'] as const;

const knownStatuses = new Set(['PROCESSING', 'CLEARED', 'RETURNED', 'REJECTED']);

/**
 * Each live application: Dr Checks To Deposit / Cr Accounts Receivable, linked to its payment link.
 * CLEARED: Dr Operating Bank / Cr Checks To Deposit for the applied total. RETURNED / REJECTED: the service
 * voids the applications (4.1 rule 4), so none is listed and everything booked gets reversed.
 *
 * A deposit's applications do not name their link, so the caller (the flow that applied the deposit)
 * supplies it; an application whose link it cannot tell is an error, never a guess, because the link is
 * part of the entry's contents. The cleared amount is the applied total when the deposit is seen cleared:
 * voiding an application after clearing makes it differ, which surfaces as a conflict to look at.
 */
export function checkDepositEntries(
  deposit: CheckDepositForBooks,
  paymentLinkOf: (externalPaymentId: string) => string | undefined,
  timeZone: string,
): LedgerEntryInput[] {
  if (!knownStatuses.has(deposit.status)) {
    throw new UnmappableStateError(`check deposit ${deposit.id}: unknown status ${deposit.status}`);
  }
  if (deposit.status === 'RETURNED' || deposit.status === 'REJECTED') return [];
  const live = deposit.applications.filter((a) => !a.voided && a.amountCents !== 0);
  const entries: LedgerEntryInput[] = live.map((application) => {
    const paymentLinkId = paymentLinkOf(application.id);
    if (!paymentLinkId) {
      throw new UnmappableStateError(
        `check deposit ${deposit.id}: payment link of application ${application.id} unknown`,
      );
    }
    return {
      key: entryKeys.checkApplication(application.id),
      date: businessDay(application.paidAt, timeZone, `application ${application.id} paidAt`),
      description: `Check deposit ${deposit.id} applied to payment link ${paymentLinkId}`,
      lines: [
        { account: Accounts.ChecksToDeposit, amountCents: application.amountCents },
        { account: Accounts.AccountsReceivable, amountCents: -application.amountCents },
      ],
      links: { checkDepositId: deposit.id, externalPaymentId: application.id, paymentLinkId },
    };
  });
  const applied = live.reduce((sum, a) => sum + a.amountCents, 0);
  if (deposit.status === 'CLEARED' && applied !== 0) {
    if (!deposit.clearedAt)
      throw new UnmappableStateError(`check deposit ${deposit.id}: CLEARED without clearedAt`);
    entries.push({
      key: entryKeys.checkCleared(deposit.id),
      date: businessDay(deposit.clearedAt, timeZone, `check deposit ${deposit.id} clearedAt`),
      description: `Check deposit ${deposit.id} cleared`,
      lines: [
        { account: Accounts.OperatingBank, amountCents: applied },
        { account: Accounts.ChecksToDeposit, amountCents: -applied },
      ],
      links: { checkDepositId: deposit.id },
    });
  }
  return entries;
}
