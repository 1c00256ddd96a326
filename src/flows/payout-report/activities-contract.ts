// The contract between the payout report workflows and their activities (implementation:
// src/flows/payout-report/activities.ts). Types only: the workflows import nothing that does I/O.

import type { PayoutPeriodReportSummary } from '../../payouts/period-summary.js';
import type { PayoutPeriod, PayoutReport } from '../../payouts/report-schema.js';

export type { PayoutPeriodReportSummary } from '../../payouts/period-summary.js';
export type { PayoutPeriod, PayoutReport } from '../../payouts/report-schema.js';

export interface PayoutReportInput {
  disbursementId: string;
}

export interface PayoutReportActivities {
  /** Reads the disbursement, each of its payments and the ledger's entries for it; builds the report. */
  buildPayoutReport(input: PayoutReportInput): Promise<PayoutReport>;
  /** The ids of the disbursements batched in the period (createdAt from..to), oldest first. */
  listPayoutsInPeriod(period: PayoutPeriod): Promise<string[]>;
  /**
   * The period's report in one activity: lists its payouts, reports each, sums them, stores the whole report
   * in the ledger's reports and returns its bounded summary with the stored id (the period workflow's result:
   * a busy period's report is megabytes, past what a workflow result or its history may carry).
   */
  buildPayoutPeriodReport(period: PayoutPeriod): Promise<PayoutPeriodReportSummary>;
}
