import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry } from '../ledger/entry.js';
import type { PayoutBooks } from './report-schema.js';

/**
 * What the books hold for one disbursement: its entries' Payouts In Transit lines, and their bank lines
 * (Operating Bank, or Payout Bank for a payout to one of PAYOUT_BANK_ACCOUNTS).
 */
export function payoutBooks(entries: readonly BookedEntry[]): PayoutBooks {
  let inTransitCents = 0;
  let bankCents = 0;
  // Reversals are among the entries and carry negated lines, so summing everything nets them out.
  for (const entry of entries) {
    for (const line of entry.lines) {
      if (line.account === Accounts.PayoutsInTransit) inTransitCents += line.amountCents;
      else if (line.account === Accounts.OperatingBank || line.account === Accounts.PayoutBank)
        bankCents += line.amountCents;
    }
  }
  return { inTransitCents, bankCents };
}

/** What the books should hold for a disbursement of this status; undefined for a status booksync does not map. */
export function expectedPayoutBooks(status: string, amountCents: number): PayoutBooks | undefined {
  switch (status) {
    case 'PENDING':
      return { inTransitCents: amountCents, bankCents: 0 };
    case 'SUCCEEDED':
      return { inTransitCents: 0, bankCents: amountCents };
    case 'FAILED':
      return { inTransitCents: 0, bankCents: 0 };
    default:
      return undefined;
  }
}

export interface ReturnedRefundCredit {
  refundId: string;
  paymentId: string;
  amountCents: number;
  /** The refund's date as booked (a day, as the start of it: the books keep no time). */
  refundDate: string;
}

/**
 * The refunds of a payment the books booked and later reversed because the service stopped listing them: ACH
 * refund credits the payer's bank sent back (decision “Returned ACH refund credit”). The service forgets them; the payout report needs them,
 * since a payout batched after such a refund was made smaller by it.
 */
export function returnedRefundCredits(
  paymentId: string,
  entries: readonly BookedEntry[],
  listedRefundIds: ReadonlySet<string>,
): ReturnedRefundCredit[] {
  const credits = new Map<string, ReturnedRefundCredit>();
  for (const entry of entries) {
    const refundId = entry.links.refundId;
    if (!entry.key.startsWith('refund:') || entry.reverses !== null || entry.reversedBy === null) continue;
    if (refundId === undefined || listedRefundIds.has(refundId)) continue;
    const amountCents = entry.lines.find((line) => line.account === Accounts.Refunds)?.amountCents ?? 0;
    // A refund booked again after a return (`refund:{id}#2`) would be listed; the first booking is enough.
    if (amountCents > 0 && !credits.has(refundId)) {
      credits.set(refundId, { refundId, paymentId, amountCents, refundDate: `${entry.date}T00:00:00.000Z` });
    }
  }
  return [...credits.values()];
}
