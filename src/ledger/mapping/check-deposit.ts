import type { CheckDeposit } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../chart-of-accounts.js';
import type { BookedEntry, LedgerEntryInput } from '../entry.js';
import { baseKey, entryKeys, keyPrefix } from '../entry-key.js';
import { UnmappableStateError } from '../errors.js';
import { businessDay } from './dates.js';
import { debitCredit } from './debit-credit.js';
import type { ExternalPaymentForBooks } from './payment-link.js';

/** The subset of a fetched CheckDeposit the books depend on. */
export type CheckDepositForBooks = Pick<
  CheckDeposit,
  'id' | 'status' | 'amountCents' | 'createdAt' | 'clearedAt'
> & {
  applications: readonly ExternalPaymentForBooks[];
};

export const checkDepositEntryKinds = ['check-deposited', 'check-application', 'check-cleared'] as const;

const knownStatuses = new Set(['PROCESSING', 'CLEARED', 'RETURNED', 'REJECTED']);

/**
 * What an earlier release booked for a deposit in its shape: only the applied part of a
 * check, each application Dr Checks To Deposit / Cr Accounts Receivable, and on clearing the applied total
 * to the bank. Read from the deposit's booked entries (earlierCheckBooking), so the mapping stays pure.
 */
export interface EarlierCheckBooking {
  /** Applications booked Dr Checks To Deposit (reversed or not): externalPaymentId -> cents. */
  applications: ReadonlyMap<string, number>;
  /** The live `check-cleared:{id}` of such a deposit: the applied total it sent to the bank. */
  clearedCents: number | null;
}

export const noEarlierCheckBooking: EarlierCheckBooking = { applications: new Map(), clearedCents: null };

/** The earlier release's shape among a deposit's booked entries (its `entriesFor({checkDepositId})`). */
export function earlierCheckBooking(
  depositId: string,
  booked: readonly Pick<BookedEntry, 'key' | 'lines' | 'links' | 'reverses' | 'reversedBy'>[],
): EarlierCheckBooking {
  const applications = new Map<string, number>();
  for (const e of booked) {
    if (e.reverses !== null || keyPrefix(e.key) !== 'check-application' || !e.links.externalPaymentId)
      continue;
    const checks = e.lines.find((l) => l.account === Accounts.ChecksToDeposit && l.amountCents > 0);
    if (checks) applications.set(e.links.externalPaymentId, checks.amountCents);
  }
  if (applications.size === 0) return noEarlierCheckBooking;
  const cleared = booked.find(
    (e) =>
      e.reverses === null && e.reversedBy === null && baseKey(e.key) === entryKeys.checkCleared(depositId),
  );
  const bank = cleared?.lines.find((l) => l.account === Accounts.OperatingBank);
  return { applications, clearedCents: bank ? bank.amountCents : null };
}

/**
 * A deposited check is booked whole: the bank receives the whole check, so the books do.
 * - `check-deposited:{id}` on the deposit's own day: Dr Checks To Deposit / Cr Unapplied Cash, its amount.
 * - each live application (`check-application:{externalPaymentId}`, on its paidAt): Dr Unapplied Cash /
 *   Cr Accounts Receivable, linked to its payment link. One made after clearing is the same entry: money
 *   moves from the customer's credit to the invoice, nothing at the bank changes.
 * - CLEARED (`check-cleared:{id}`, on clearedAt): Dr Operating Bank / Cr Checks To Deposit, the amount.
 * - RETURNED / REJECTED: the service voids the applications (4.1 rule 4); nothing is desired, so the caller's
 *   sync reverses every entry, each by a reversing entry in the open period.
 *
 * Deposits an earlier release booked in its shape (`earlier`, see EarlierCheckBooking) keep those entries
 * untouched: rebooking them would reverse and repost every application (closed months included, as
 * reversals in the open one), and a live conflict on `check-cleared` would stop the deposit's syncs. They
 * get what completes the whole check instead:
 * - their applications stay Dr Checks To Deposit / Cr Accounts Receivable (the deposit and its application
 *   in one entry), so `check-deposited:{id}` books only the rest: the amount less those applications;
 * - one of them voided since gives its part back: `check-deposited:{id}:{externalPaymentId}`, Dr Checks To
 *   Deposit / Cr Unapplied Cash, while its old entry is reversed (its A/R comes back);
 * - a `check-cleared:{id}` of the applied total stays, and `check-cleared:{id}:rest` sends the rest of the
 *   check to the bank.
 * Each of these amounts is fixed by what was booked before the upgrade, so later syncs find them unchanged.
 *
 * A deposit's applications do not name their link, so the caller (the flow that applied the deposit)
 * supplies it; an application whose link it cannot tell is an error, never a guess, because the link is
 * part of the entry's contents.
 */
export function checkDepositEntries(
  deposit: CheckDepositForBooks,
  paymentLinkOf: (externalPaymentId: string) => string | undefined,
  timeZone: string,
  earlier: EarlierCheckBooking = noEarlierCheckBooking,
): LedgerEntryInput[] {
  if (!knownStatuses.has(deposit.status)) {
    throw new UnmappableStateError(`check deposit ${deposit.id}: unknown status ${deposit.status}`);
  }
  if (deposit.status === 'RETURNED' || deposit.status === 'REJECTED') return [];
  const depositDay = businessDay(deposit.createdAt, timeZone, `check deposit ${deposit.id} createdAt`);
  const links = { checkDepositId: deposit.id };
  const entries: LedgerEntryInput[] = [];

  const heldEarlier = [...earlier.applications.values()].reduce((sum, c) => sum + c, 0);
  const rest = deposit.amountCents - heldEarlier;
  if (rest < 0) {
    throw new UnmappableStateError(
      `check deposit ${deposit.id}: applications booked before hold ${heldEarlier} cents, more than its ${deposit.amountCents}`,
    );
  }
  if (rest > 0) {
    entries.push({
      key: entryKeys.checkDeposited(deposit.id),
      date: depositDay,
      description:
        heldEarlier === 0
          ? `Check deposit ${deposit.id} deposited`
          : `Check deposit ${deposit.id} deposited: the part its earlier applications did not book`,
      lines: debitCredit(Accounts.ChecksToDeposit, Accounts.UnappliedCash, rest),
      links,
    });
  }

  const live = deposit.applications.filter((a) => !a.voided && a.amountCents !== 0);
  for (const application of live) {
    const paymentLinkId = paymentLinkOf(application.id);
    if (!paymentLinkId) {
      throw new UnmappableStateError(
        `check deposit ${deposit.id}: payment link of application ${application.id} unknown`,
      );
    }
    const from = earlier.applications.has(application.id) ? Accounts.ChecksToDeposit : Accounts.UnappliedCash;
    entries.push({
      key: entryKeys.checkApplication(application.id),
      date: businessDay(application.paidAt, timeZone, `application ${application.id} paidAt`),
      description: `Check deposit ${deposit.id} applied to payment link ${paymentLinkId}`,
      lines: [
        { account: from, amountCents: application.amountCents },
        { account: Accounts.AccountsReceivable, amountCents: -application.amountCents },
      ],
      links: { checkDepositId: deposit.id, externalPaymentId: application.id, paymentLinkId },
    });
  }
  const liveIds = new Set(live.map((a) => a.id));
  for (const [externalPaymentId, cents] of earlier.applications) {
    if (liveIds.has(externalPaymentId)) continue;
    entries.push({
      key: entryKeys.checkDepositedBack(deposit.id, externalPaymentId),
      date: depositDay,
      description: `Check deposit ${deposit.id}: voided application ${externalPaymentId} back in unapplied cash`,
      lines: debitCredit(Accounts.ChecksToDeposit, Accounts.UnappliedCash, cents),
      links,
    });
  }

  if (deposit.status === 'CLEARED') {
    if (!deposit.clearedAt)
      throw new UnmappableStateError(`check deposit ${deposit.id}: CLEARED without clearedAt`);
    const clearedDay = businessDay(deposit.clearedAt, timeZone, `check deposit ${deposit.id} clearedAt`);
    const cleared = (key: string, description: string, cents: number): LedgerEntryInput => ({
      key,
      date: clearedDay,
      description,
      lines: debitCredit(Accounts.OperatingBank, Accounts.ChecksToDeposit, cents),
      links,
    });
    const sentBefore = earlier.clearedCents ?? deposit.amountCents;
    entries.push(
      cleared(entryKeys.checkCleared(deposit.id), `Check deposit ${deposit.id} cleared`, sentBefore),
    );
    if (deposit.amountCents !== sentBefore) {
      entries.push(
        cleared(
          entryKeys.checkClearedRest(deposit.id),
          `Check deposit ${deposit.id} cleared: the part its earlier cleared entry did not book`,
          deposit.amountCents - sentBefore,
        ),
      );
    }
  }
  return entries;
}
