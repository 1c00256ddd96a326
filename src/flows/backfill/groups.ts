import type {
  CheckDeposit,
  Disbursement,
  Payment,
  PaymentLink,
} from '@booksync/service-contract/schemas/index';
import { type AccountName, Accounts } from '../../ledger/chart-of-accounts.js';
import type { LedgerEntryInput } from '../../ledger/entry.js';
import {
  businessDay,
  checkDepositEntries,
  disbursementEntries,
  invoiceAmountCents,
  linkMoneyDays,
  openingInvoiceEntry,
  type PaymentLinkBookingOptions,
  paymentEntries,
  paymentLinkEntries,
  paymentSettles,
} from '../../ledger/mapping/index.js';
import { addInFlight } from '../../ledger/opening-balances.js';

// What a backfill since a day does with each object group the service lists: a
// group that is settled before the books open leaves only its money in flight to Opening Balances; any other
// group is imported whole, with its real dates, so that what can still happen to it (an ACH return, a
// payout, a payment on an open invoice) books against entries that exist. Pure.

export interface BackfillWindow {
  /** YYYY-MM-DD: the day the books open. */
  opensOn: string;
  /** YYYY-MM-DD: today, for the ACH return windows still running. */
  asOf: string;
}

export type GroupVerdict =
  | { import: true; why: string }
  | { import: false; inFlight: Partial<Record<AccountName, number>> }
  /**
   * A link of last period still owed when the books open: its opening document (what it owed that day,
   * against Opening Balances) and its entries from the opening day on; the money its earlier records left in
   * flight goes to the opening entry.
   */
  | { import: 'opening'; why: string; inFlight: Partial<Record<AccountName, number>> };

const achReturnWindowDays = 60;

/** A payment whose books can still change by itself: PENDING, or ACH inside its 60-day return window. */
export function paymentStillOpen(payment: Payment, window: BackfillWindow): string | null {
  if (payment.status === 'PENDING') return `payment ${payment.id} is PENDING`;
  if (payment.paymentMethod?.type === 'ACH' && payment.status !== 'FAILED') {
    const windowEnds = payment.createdAt + achReturnWindowDays * 86_400_000;
    if (windowEnds >= Date.parse(`${window.asOf}T00:00:00Z`)) {
      return `ACH payment ${payment.id} can still be returned`;
    }
  }
  return null;
}

/** Settled when every entry is dated before the opening; else the first reason to import. */
function settledOrWhy(entries: readonly LedgerEntryInput[], window: BackfillWindow): string | null {
  const late = entries.find((e) => e.date >= window.opensOn);
  return late ? `${late.key} is dated ${late.date}` : null;
}

function verdictOf(
  entries: () => LedgerEntryInput[],
  window: BackfillWindow,
  reasons: readonly (string | null)[],
): GroupVerdict {
  const first = reasons.find((r) => r !== null);
  if (first) return { import: true, why: first };
  let mapped: LedgerEntryInput[];
  try {
    mapped = entries();
  } catch (error) {
    // Unmappable now: the import's own sync reports it on the object.
    return { import: true, why: error instanceof Error ? error.message : String(error) };
  }
  const late = settledOrWhy(mapped, window);
  if (late) return { import: true, why: late };
  const inFlight: Partial<Record<AccountName, number>> = {};
  addInFlight(inFlight, mapped);
  return { import: false, inFlight };
}

/**
 * A payment link with its payments, external payments and debit memos. Imported when money moved on it
 * from the opening day on, when it is still owed, when one of its payments can still change, or when a
 * deposited check paid it (a deposit's verdict can come later: E2).
 */
export function linkVerdict(
  link: PaymentLink,
  window: BackfillWindow,
  options: PaymentLinkBookingOptions,
): GroupVerdict {
  return openingDocumentVerdict(link, window, options) ?? importVerdict(link, window, options);
}

/**
 * A link whose invoice is last period's and owed something when the books open: an opening document. The
 * service gives a link no issue date (spec 2.1), so last period's is read from its money: some moved on it
 * before the opening day, or none has moved on it at all (an unpaid invoice the backfill finds when the books
 * open). A link whose first money is from the opening day on is this period's sale. Links whose history
 * cannot be cut at the opening are imported whole: a payment before the opening that can still be returned,
 * a check deposited through the service.
 */
function openingDocumentVerdict(
  link: PaymentLink,
  window: BackfillWindow,
  options: PaymentLinkBookingOptions,
): GroupVerdict | null {
  if (link.reusable) return null;
  const days = linkMoneyDays(link, options.timeZone);
  const lastPeriod = days.length === 0 || days.some((day) => day < window.opensOn);
  if (!lastPeriod) return null;
  if (link.externalPayments.some((e) => e.serviceBankingTransferId != null)) return null;
  try {
    const before = (p: Payment) => businessDay(p.createdAt, options.timeZone, p.id) < window.opensOn;
    if (link.payments.some((p) => before(p) && paymentStillOpen(p, window))) return null;
    const opening = openingInvoiceEntry(link, window.opensOn, options);
    if (!opening) return null;
    const earlier = [
      ...paymentLinkEntries(link, options),
      ...link.payments.flatMap((p) => paymentEntries(p, options.timeZone, paymentSettles(link))),
    ].filter((e) => e.date < window.opensOn);
    const inFlight: Partial<Record<AccountName, number>> = {};
    addInFlight(inFlight, earlier);
    const owed = opening.lines[0]?.amountCents ?? 0;
    return {
      import: 'opening',
      why: `payment link ${link.id} owed ${owed} cents when the books opened`,
      inFlight,
    };
  } catch {
    // Unmappable: imported whole, where its own sync reports why.
    return null;
  }
}

function importVerdict(
  link: PaymentLink,
  window: BackfillWindow,
  options: PaymentLinkBookingOptions,
): GroupVerdict {
  const lateMoney = linkMoneyDays(link, options.timeZone).find((day) => day >= window.opensOn);
  const owed = link.reusable ? 0 : link.requestedAmountCents - link.completedAmountCents;
  return verdictOf(
    () => {
      const entries = [
        ...paymentLinkEntries(link, options),
        ...link.payments.flatMap((p) => paymentEntries(p, options.timeZone, paymentSettles(link))),
      ];
      const receivable =
        (link.reusable ? 0 : invoiceAmountCents(link)) +
        entries
          .flatMap((e) => e.lines)
          .filter((l) => l.account === Accounts.AccountsReceivable)
          .reduce((sum, l) => sum + l.amountCents, 0);
      if (!link.reusable && receivable !== 0) {
        // The books would not settle it the way the service did: import it and let its syncs show why.
        throw new Error(`payment link ${link.id}: its receivable nets to ${receivable} cents, not 0`);
      }
      return entries;
    },
    window,
    [
      lateMoney ? `money moved on payment link ${link.id} on ${lateMoney}` : null,
      owed !== 0 ? `payment link ${link.id} is still owed ${owed} cents` : null,
      ...link.payments.map((p) => paymentStillOpen(p, window)),
      link.externalPayments.some((e) => e.serviceBankingTransferId != null)
        ? `payment link ${link.id} was paid by a deposited check`
        : null,
    ],
  );
}

/** A payment on no payment link: a sale of its own. */
export function paymentVerdict(payment: Payment, window: BackfillWindow, timeZone: string): GroupVerdict {
  return verdictOf(() => paymentEntries(payment, timeZone, 'sale'), window, [
    paymentStillOpen(payment, window),
  ]);
}

/** A disbursement: imported while on its way (PENDING) or when it moved from the opening day on. */
export function disbursementVerdict(disbursement: Disbursement, window: BackfillWindow): GroupVerdict {
  return verdictOf(() => disbursementEntries(disbursement), window, [
    disbursement.status === 'PENDING' ? `disbursement ${disbursement.id} is PENDING` : null,
  ]);
}

/**
 * A check deposit: imported whenever it applied money (its links are imported whole, see linkVerdict) or the
 * bank has not decided yet. One with no application whose entries (the whole check, to Unapplied Cash, and
 * its clearing) are all before the opening leaves its unapplied money in flight; a returned one, nothing.
 */
export function checkDepositVerdict(
  deposit: CheckDeposit,
  window: BackfillWindow,
  timeZone: string,
): GroupVerdict {
  if (deposit.status === 'RETURNED' || deposit.status === 'REJECTED') return { import: false, inFlight: {} };
  return verdictOf(() => checkDepositEntries(deposit, () => undefined, timeZone), window, [
    deposit.applications.length > 0 ? `check deposit ${deposit.id} applied money to payment links` : null,
    deposit.status === 'PROCESSING' ? `check deposit ${deposit.id} is PROCESSING` : null,
  ]);
}
