import type { Disbursement, Payment } from '@booksync/service-contract/schemas/index';
import { formatUsd } from '../ledger/money.js';
import { expectedPayoutBooks, type ReturnedRefundCredit } from './payout-books.js';
import { refundTimings } from './refund-timing.js';
import type {
  PayoutBooks,
  PayoutMismatch,
  PayoutPayment,
  PayoutRefund,
  PayoutReport,
  PayoutTotals,
} from './report-schema.js';

export interface PayoutFacts {
  disbursement: Disbursement;
  /** Its payments as fetched now, in the disbursement's paymentIds order. */
  payments: readonly Payment[];
  books: PayoutBooks;
  /** ACH refund credits on its payments that came back (from the books: the service no longer lists them). */
  returnedRefundCredits: readonly ReturnedRefundCredit[];
  computedAt: string;
}

/**
 * The payout report of one disbursement, pure: what its payments are worth now (gross, less absorbed fees,
 * refunds and returns) beside the amount sent, and every reason the two differ, what reached the bank, and
 * whether the books show it as the service does.
 */
export function payoutReport({
  disbursement,
  payments,
  books,
  returnedRefundCredits,
  computedAt,
}: PayoutFacts): PayoutReport {
  const amount = disbursement.amountInCents;
  const batchedOn = disbursement.createdAt;
  // Returned credits were live when made, so they take part in placing the refunds around the batch.
  const allRefunds = [
    ...payments.flatMap((payment) =>
      payment.refunds
        .filter((refund) => !refund.voided)
        .map((refund) => ({ ...refund, refundId: refund.id, paymentId: payment.id, returned: false })),
    ),
    ...returnedRefundCredits.map((credit) => ({ ...credit, returned: true })),
  ];
  const grossLessFees = payments.reduce((sum, p) => sum + p.amountInCents - p.platformFeeInCents, 0);
  const timings = refundTimings(allRefunds, batchedOn, grossLessFees - amount);

  const refunds: PayoutRefund[] = allRefunds
    .map((refund) => ({
      refundId: refund.refundId,
      paymentId: refund.paymentId,
      amountCents: refund.amountCents,
      refundDate: refund.refundDate,
      timing: timings.get(refund.refundId) ?? 'BEFORE_BATCH',
      returned: refund.returned,
    }))
    .sort((a, b) => Date.parse(a.refundDate) - Date.parse(b.refundDate));

  const lines: PayoutPayment[] = payments.map((payment) => {
    const mine = refunds.filter((refund) => refund.paymentId === payment.id && !refund.returned);
    const before = sumOf(mine.filter((r) => r.timing === 'BEFORE_BATCH'));
    const after = sumOf(mine.filter((r) => r.timing === 'AFTER_BATCH'));
    // A batch only takes payments not yet returned, so a FAILED payment in one was returned after it; the
    // return took back what it had left at the service (decision “Disbursement statuses”: a payment with live refunds cannot be returned).
    const returned = payment.status === 'FAILED' ? payment.amountInCents - payment.platformFeeInCents : 0;
    return {
      paymentId: payment.id,
      paymentLinkId: payment.paymentLinkId,
      method: payment.paymentMethod?.type ?? null,
      status: payment.status,
      grossCents: payment.amountInCents,
      absorbedFeeCents: payment.platformFeeInCents,
      refundedBeforeBatchCents: before,
      refundedAfterBatchCents: after,
      returnedCents: returned,
      netCents: payment.amountInCents - payment.platformFeeInCents - before - after - returned,
    };
  });
  const totals = totalsOf(lines);
  const differenceCents = amount - totals.netCents;
  const mismatches = [
    ...differenceReasons(disbursement, refunds, lines, differenceCents),
    ...bankReasons(disbursement, books),
  ];
  return {
    disbursementId: disbursement.id,
    status: disbursement.status,
    createdAt: disbursement.createdAt,
    paidAt: disbursement.paidAt,
    bankAccount: `${disbursement.bankName} ••${disbursement.accountNumberLastFour}`,
    amountCents: amount,
    reachedBankCents:
      disbursement.status === 'SUCCEEDED' ? amount : disbursement.status === 'FAILED' ? 0 : null,
    payments: lines,
    refunds,
    totals,
    differenceCents,
    books,
    mismatches,
    reconciles: mismatches.length === 0,
    computedAt,
  };
}

function sumOf(items: readonly { amountCents: number }[]): number {
  return items.reduce((sum, item) => sum + item.amountCents, 0);
}

function totalsOf(lines: readonly PayoutPayment[]): PayoutTotals {
  const total = (field: keyof PayoutPayment) => lines.reduce((sum, line) => sum + (line[field] as number), 0);
  return {
    payments: lines.length,
    grossCents: total('grossCents'),
    absorbedFeeCents: total('absorbedFeeCents'),
    refundedBeforeBatchCents: total('refundedBeforeBatchCents'),
    refundedAfterBatchCents: total('refundedAfterBatchCents'),
    returnedCents: total('returnedCents'),
    netCents: total('netCents'),
  };
}

/** Why the amount sent differs from what its payments are worth now: each refund and return after it. */
function differenceReasons(
  disbursement: Disbursement,
  refunds: readonly PayoutRefund[],
  lines: readonly PayoutPayment[],
  differenceCents: number,
): PayoutMismatch[] {
  const reasons: PayoutMismatch[] = [];
  for (const refund of refunds) {
    if (refund.returned) {
      // Made before the batch, it made the payout smaller; the money is back at the service now. One made
      // after the batch and returned touched the service balance only.
      if (refund.timing === 'BEFORE_BATCH') {
        reasons.push({
          reason: 'REFUND_CREDIT_RETURNED',
          amountCents: -refund.amountCents,
          paymentId: refund.paymentId,
          refundId: refund.refundId,
          detail: `refund ${refund.refundId} of ${formatUsd(refund.amountCents)} on payment ${refund.paymentId}, made before the batch, came back from the payer's bank: the payout was smaller by it, and the money is back in the service balance`,
        });
      }
      continue;
    }
    if (refund.timing !== 'AFTER_BATCH') continue;
    reasons.push({
      reason: 'REFUND_AFTER_BATCH',
      amountCents: refund.amountCents,
      paymentId: refund.paymentId,
      refundId: refund.refundId,
      detail: `refund ${refund.refundId} of ${formatUsd(refund.amountCents)} on payment ${refund.paymentId} was made ${refund.refundDate.slice(0, 10)}, after the batch of ${disbursement.createdAt ?? 'an undated day'}: it came out of the service balance, not this payout`,
    });
  }
  for (const line of lines) {
    if (line.returnedCents === 0) continue;
    reasons.push({
      reason: 'RETURN_AFTER_PAYOUT',
      amountCents: line.returnedCents,
      paymentId: line.paymentId,
      detail: `payment ${line.paymentId} (${formatUsd(line.grossCents)}) was returned by the payer's bank after the payout: ${formatUsd(line.returnedCents)} went back from the service balance`,
    });
  }
  const unexplained = differenceCents - sumOf(reasons);
  if (unexplained !== 0) {
    reasons.push({
      reason: 'UNEXPLAINED',
      amountCents: unexplained,
      detail: `${formatUsd(unexplained)} of the difference between the payout and its payments has no known cause`,
    });
  }
  return reasons;
}

/** Whether the money reached the bank, and whether the books say where it is as the service does. */
function bankReasons(disbursement: Disbursement, books: PayoutBooks): PayoutMismatch[] {
  const reasons: PayoutMismatch[] = [];
  const amount = disbursement.amountInCents;
  if (disbursement.status === 'FAILED') {
    reasons.push({
      reason: 'PAYOUT_FAILED',
      amountCents: amount,
      detail: `the receiving bank refused the payout: ${formatUsd(amount)} never reached the bank and is back in the service balance`,
    });
  }
  const expected = expectedPayoutBooks(disbursement.status, amount);
  if (
    expected &&
    (expected.bankCents !== books.bankCents || expected.inTransitCents !== books.inTransitCents)
  ) {
    reasons.push({
      reason: 'BOOKS_DIFFER',
      amountCents:
        expected.bankCents !== books.bankCents
          ? expected.bankCents - books.bankCents
          : expected.inTransitCents - books.inTransitCents,
      detail: `the books show ${formatUsd(books.bankCents)} in the bank and ${formatUsd(books.inTransitCents)} in transit for this ${disbursement.status} payout, not ${formatUsd(expected.bankCents)} and ${formatUsd(expected.inTransitCents)} (booksync reconcile repairs it)`,
    });
  }
  return reasons;
}
