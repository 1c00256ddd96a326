import { z } from 'zod';
import { type ReportReader, readReport, type StoredReportRef } from '../ledger/report-store.js';
import { PayoutPeriodReport } from './report-schema.js';

// What the payoutPeriodReport workflow returns: the period's totals and verdict, the first payouts that do
// not reconcile, and where the whole report (every payout with its payments) is stored (report-store.ts). A
// busy period's report runs to megabytes; this summary stays a few kilobytes whatever the period.

/** How many payouts that do not reconcile a summary lists (`totals.mismatched` counts them all). */
export const summaryPayoutLimit = 20;

export const MismatchedPayout = z.object({
  disbursementId: z.string(),
  status: z.string(),
  amountCents: z.number().int(),
  differenceCents: z.number().int(),
  reasons: z.array(z.string()),
});
export type MismatchedPayout = z.infer<typeof MismatchedPayout>;

export const PayoutPeriodReportSummary = z.object({
  from: z.string(),
  to: z.string(),
  totals: PayoutPeriodReport.shape.totals,
  reconciles: z.boolean(),
  /** The first `summaryPayoutLimit` payouts that do not reconcile, oldest first. */
  mismatched: z.array(MismatchedPayout),
  /** The stored report's id in the ledger's reports. */
  reportId: z.string(),
  /** The stored report's size (UTF-8 bytes of its JSON). */
  bytes: z.number().int(),
});
export type PayoutPeriodReportSummary = z.infer<typeof PayoutPeriodReportSummary>;

export function periodReportSummary(
  report: PayoutPeriodReport,
  stored: StoredReportRef,
): PayoutPeriodReportSummary {
  return {
    from: report.from,
    to: report.to,
    totals: report.totals,
    reconciles: report.reconciles,
    mismatched: report.payouts
      .filter((payout) => !payout.reconciles)
      .slice(0, summaryPayoutLimit)
      .map((payout) => ({
        disbursementId: payout.disbursementId,
        status: payout.status,
        amountCents: payout.amountCents,
        differenceCents: payout.differenceCents,
        reasons: payout.mismatches.map((m) => m.reason),
      })),
    reportId: stored.id,
    bytes: stored.bytes,
  };
}

/** A payoutPeriodReport result: a summary, or the whole report (the runs of releases before the summaries). */
export const PayoutPeriodResult = z.union([PayoutPeriodReportSummary, PayoutPeriodReport]);
export type PayoutPeriodResult = z.infer<typeof PayoutPeriodResult>;

/** The whole period report of a payoutPeriodReport result: read back by its id, or the result itself. */
export async function fullPeriodReport(
  result: PayoutPeriodResult,
  reports: ReportReader,
): Promise<PayoutPeriodReport> {
  if (!('reportId' in result)) return result;
  return PayoutPeriodReport.parse(
    await readReport<unknown>(reports, result.reportId, 'payout-period-report'),
  );
}
