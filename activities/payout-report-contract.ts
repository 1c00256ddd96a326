// The contract between the payout report workflows and their activities (implementation:
// activities/payout-report.ts). Types only: the workflows import nothing that does I/O.

import type { PayoutPeriod, PayoutReport } from '../src/payouts/report-schema.js';

export type { PayoutPeriod, PayoutReport } from '../src/payouts/report-schema.js';

export interface PayoutReportInput {
  disbursementId: string;
}

export interface PayoutReportActivities {
  /** Reads the disbursement, each of its payments and the ledger's entries for it; builds the report. */
  buildPayoutReport(input: PayoutReportInput): Promise<PayoutReport>;
  /** The ids of the disbursements batched in the period (createdAt from..to), oldest first. */
  listPayoutsInPeriod(period: PayoutPeriod): Promise<string[]>;
}
