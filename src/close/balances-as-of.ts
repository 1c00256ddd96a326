import type { Disbursement, Payment } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry } from '../ledger/entry.js';
import { baseKey, keyPrefix } from '../ledger/entry-key.js';
import { businessDay } from '../ledger/mapping/dates.js';
import { surchargeCents } from '../ledger/mapping/payment.js';

// The close certificate's two balance checks (Processor Clearing, Payouts In Transit) as of the end of the
// period's last day, both sides dated alike. Pure.
//
// The service side is worked out from the dates its objects carry (spec 2.2, 2.5, 2.6): a payment's createdAt
// (unix ms, a business day in the books' time zone), a refund's refundDate, a disbursement's createdAt and
// paidAt (plain dates). What the spec does not date is decided here, the same way for every period:
// - a FAILED payment (an ACH return, payment.failed up to 60 days later) and a FAILED disbursement carry no
//   time of failure, and the event's created_at is not kept on the object: the failure is dated the day the
//   books reversed the object's entry (when booksync heard of it; its economic date if it was booked after a
//   close), and taken to be by the period's end when the books hold no such reversal (never booked, or not yet
//   reversed: then the books still count money the service says failed, and the check names it);
// - a FAILED card payment is a chargeback: its money went back, its card fee stays kept by the processor;
// - a charge cancelled before settlement is dated by its voided refund's refundDate;
// - a returned ACH refund credit leaves refunds[] with no trace (decision “Returned ACH refund credit”): a refund made by the period's end and
//   returned after it is missing from the service's figure.
// The books' side: every line of the entries whose economic date (else date) is on or before the day, so an
// event of the period booked after its close (dated the first open day, economicDate its own) still counts in
// the period, as the service dates it.

export interface BalanceAsOf {
  check: 'ProcessorClearing' | 'PayoutsInTransit';
  title: string;
  /** The day whose end both figures are taken at (the period's last day, in the books' time zone). */
  asOf: string;
  booksCents: number;
  serviceCents: number;
  ok: boolean;
  /** How the service's figure is worked out, and what the spec cannot date. */
  basis: string;
}

/** The day an entry's money moved: its economic date when it was booked after a closed period, else its date. */
export const economicDay = (entry: BookedEntry): string => entry.economicDate ?? entry.date;

/** The books' balances of the two clearing accounts from the entries whose economic day is on or before `day`. */
export function ledgerBalancesAsOf(
  entries: readonly BookedEntry[],
  day: string,
): { processorClearingCents: number; payoutsInTransitCents: number } {
  let processorClearingCents = 0;
  let payoutsInTransitCents = 0;
  for (const entry of entries) {
    if (economicDay(entry) > day) continue;
    for (const line of entry.lines) {
      if (line.account === Accounts.ProcessorClearing) processorClearingCents += line.amountCents;
      else if (line.account === Accounts.PayoutsInTransit) payoutsInTransitCents += line.amountCents;
    }
  }
  return { processorClearingCents, payoutsInTransitCents };
}

/**
 * The day the books took each object's money back, by object id: the latest economic day of a reversal of its
 * `payment:`, `sale:` or `payment-fee:` (payments) or `disbursement-pending:` (disbursements) entry, for
 * objects with no such entry live any more. An object still holding a live entry has none: the books have not heard of a failure.
 */
export function reversalDays(entries: readonly BookedEntry[]) {
  const payments = new Map<string, string>();
  const disbursements = new Map<string, string>();
  const livePayments = new Set<string>();
  const liveDisbursements = new Set<string>();
  const latest = (map: Map<string, string>, id: string, day: string) => {
    const seen = map.get(id);
    if (seen === undefined || day > seen) map.set(id, day);
  };
  for (const entry of entries) {
    const kind = keyPrefix(baseKey(entry.reverses ?? entry.key));
    const { paymentId, disbursementId } = entry.links;
    const live = entry.reverses === null && entry.reversedBy === null;
    if ((kind === 'payment' || kind === 'sale' || kind === 'payment-fee') && paymentId) {
      // A disputed card payment keeps its fee live (the processor kept it): the money received tells.
      if (live && kind !== 'payment-fee') livePayments.add(paymentId);
      else if (entry.reverses !== null) latest(payments, paymentId, economicDay(entry));
    } else if (kind === 'disbursement-pending' && disbursementId) {
      if (live) liveDisbursements.add(disbursementId);
      else if (entry.reverses !== null) latest(disbursements, disbursementId, economicDay(entry));
    }
  }
  for (const id of livePayments) payments.delete(id);
  for (const id of liveDisbursements) disbursements.delete(id);
  return { payments, disbursements };
}

export interface BalancesAsOfInput {
  /** The period's last day: the figures are as of its end. */
  day: string;
  timeZone: string;
  /** Every payment the service lists (top-level and on links), each once. */
  payments: readonly Payment[];
  disbursements: readonly Disbursement[];
  /** Every entry of the ledger, reversals included. */
  entries: readonly BookedEntry[];
}

/** The service's Processor Clearing and Payouts In Transit as of the end of `day`, against the books'. */
export function balancesAsOf(input: BalancesAsOfInput): BalanceAsOf[] {
  const { day, timeZone } = input;
  const failedOn = reversalDays(input.entries);
  // A failure the books never reversed is taken to be by the period's end (see the file's comment).
  const failedBy = (reversedOn: string | undefined) => reversedOn === undefined || reversedOn <= day;

  let received = 0;
  for (const payment of input.payments) {
    if (businessDay(payment.createdAt, timeZone, `payment ${payment.id} createdAt`) > day) continue;
    if (payment.status === 'FAILED' && failedBy(failedOn.payments.get(payment.id))) {
      // A disputed card payment (a chargeback): the money went back, the processor kept the card fee, the
      // absorbed part and the part the payer paid (chargedAmountInCents - amountInCents).
      if (payment.paymentMethod?.type === 'Card') {
        received -= payment.platformFeeInCents + surchargeCents(payment);
      }
      continue;
    }
    const refundedBy = payment.refunds.filter(
      (r) => businessDay(r.refundDate, timeZone, `refund ${r.id} refundDate`) <= day,
    );
    // A voided refund cancelled the charge before settlement (decision “Settlement and voids”): nothing stays from its refundDate on.
    if (refundedBy.some((r) => r.voided)) continue;
    received +=
      payment.amountInCents -
      payment.platformFeeInCents -
      refundedBy.reduce((sum, r) => sum + r.amountCents, 0);
  }

  let disbursed = 0;
  let inTransit = 0;
  for (const d of input.disbursements) {
    const created = d.createdAt ?? d.paidAt;
    if (!created || created > day) continue;
    if (d.status === 'FAILED' && failedBy(failedOn.disbursements.get(d.id))) continue;
    disbursed += d.amountInCents;
    const paidBy = d.status === 'SUCCEEDED' && (d.paidAt ?? created) <= day;
    if (!paidBy) inTransit += d.amountInCents;
  }

  const books = ledgerBalancesAsOf(input.entries, day);
  const end = `as of the end of ${day} (${timeZone})`;
  const failures =
    'a FAILED one (no time of failure in the spec) counts until the day the books reversed its entry, and not at all when the books hold no reversal';
  return [
    {
      check: 'ProcessorClearing',
      title: 'Processor Clearing',
      asOf: day,
      booksCents: books.processorClearingCents,
      serviceCents: received - disbursed,
      ok: books.processorClearingCents === received - disbursed,
      basis: `${end}, the service's money for the business not yet disbursed: payments created by then (createdAt; ACH counted from PENDING) less absorbed fees and the refunds made by then (refundDate), a charge cancelled before settlement gone from its voided refund's refundDate, a disputed card payment's card fee kept by the processor; less the disbursements created by then (createdAt, else paidAt). Of payments and disbursements, ${failures}. A returned ACH refund credit leaves refunds[] without a trace (decision “Returned ACH refund credit”). Books: entries whose economic date (else date) is on or before ${day}.`,
    },
    {
      check: 'PayoutsInTransit',
      title: 'Payouts In Transit',
      asOf: day,
      booksCents: books.payoutsInTransitCents,
      serviceCents: inTransit,
      ok: books.payoutsInTransitCents === inTransit,
      basis: `${end}: disbursements created by then (createdAt, else paidAt) and not paid by then (SUCCEEDED with its paidAt, else its createdAt, on or before ${day}); ${failures}. Books: entries whose economic date (else date) is on or before ${day}.`,
    },
  ];
}
