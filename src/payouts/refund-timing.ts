// Which refunds of a payout's payments were made before its batch. A disbursement's amount is its payments'
// gross, less their absorbed fees and the refunds made before the batch (decision “Disbursement statuses”); refunds after it come out of
// the service balance instead. Disbursement.createdAt is only a date, so a refund of the batch day can fall
// on either side of it.

export interface TimedRefund {
  refundId: string;
  /** ISO date-time. */
  refundDate: string;
  amountCents: number;
}

export type RefundTiming = 'BEFORE_BATCH' | 'AFTER_BATCH';

/**
 * Days before the batch day are before, days after are after. The batch is one instant, so the batch day's
 * refunds that came before it are the earliest of that day: the shortest chronological prefix whose sum is
 * what the amount leaves to them. When no prefix fits, the batch day's
 * refunds count as before, and the report shows the difference as unexplained.
 */
export function refundTimings(
  refunds: readonly TimedRefund[],
  batchedOn: string | null,
  /** What the amount says was refunded before the batch: gross - absorbed fees - amount. */
  refundedBeforeBatchCents: number,
): Map<string, RefundTiming> {
  const timings = new Map<string, RefundTiming>();
  const batchDay: TimedRefund[] = [];
  let knownBefore = 0;
  for (const refund of refunds) {
    const day = refund.refundDate.slice(0, 10);
    // Without a batch date every refund is a candidate, placed by the amounts alone.
    if (batchedOn === null || day === batchedOn) batchDay.push(refund);
    else if (day < batchedOn) {
      timings.set(refund.refundId, 'BEFORE_BATCH');
      knownBefore += refund.amountCents;
    } else timings.set(refund.refundId, 'AFTER_BATCH');
  }
  batchDay.sort(
    (a, b) => Date.parse(a.refundDate) - Date.parse(b.refundDate) || (a.refundId < b.refundId ? -1 : 1),
  );
  const need = refundedBeforeBatchCents - knownBefore;
  let beforeCount = batchDay.length;
  let sum = 0;
  for (let k = 0; k <= batchDay.length; k++) {
    if (sum === need) {
      beforeCount = k;
      break;
    }
    sum += batchDay[k]?.amountCents ?? 0;
  }
  batchDay.forEach((refund, i) => {
    timings.set(refund.refundId, i < beforeCount ? 'BEFORE_BATCH' : 'AFTER_BATCH');
  });
  return timings;
}
