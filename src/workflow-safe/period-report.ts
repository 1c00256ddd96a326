import type { PayoutPeriod, PayoutPeriodReport, PayoutReport } from '../payouts/report-schema.js';

/** The period's payout reports and their sums; pure, so the period workflow can build it. */
export function periodReport(period: PayoutPeriod, payouts: readonly PayoutReport[]): PayoutPeriodReport {
  const mismatched = payouts.filter((payout) => !payout.reconciles).length;
  return {
    from: period.from,
    to: period.to,
    payouts: [...payouts],
    totals: {
      payouts: payouts.length,
      amountCents: payouts.reduce((sum, p) => sum + p.amountCents, 0),
      reachedBankCents: payouts.reduce((sum, p) => sum + (p.reachedBankCents ?? 0), 0),
      netCents: payouts.reduce((sum, p) => sum + p.totals.netCents, 0),
      mismatched,
    },
    reconciles: mismatched === 0,
  };
}

/** Whether a disbursement batched on `createdAt` (YYYY-MM-DD, or null when undated) is in the period. */
export function inPeriod(createdAt: string | null, period: PayoutPeriod): boolean {
  return createdAt !== null && createdAt >= period.from && createdAt <= period.to;
}
