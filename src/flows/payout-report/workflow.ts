import {
  ApplicationFailure,
  defineQuery,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { PayoutPeriodReport } from '../../payouts/report-schema.js';
import { periodReport } from '../../workflow-safe/period-report.js';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import {
  AmountCents,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../../workflow-safe/search-attributes.js';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import { attention } from '../in-workflow/attention.js';
import type {
  PayoutPeriod,
  PayoutPeriodReportSummary,
  PayoutReport,
  PayoutReportActivities,
  PayoutReportInput,
} from './activities-contract.js';
import { payoutPeriodReportWorkflowType, payoutReportWorkflowType } from './contract.js';

export interface PayoutReportView {
  state: 'RUNNING' | 'DONE';
  report: PayoutReport | null;
}

export interface PayoutPeriodReportView {
  state: 'RUNNING' | 'DONE';
  /** Disbursements of the period, and how many are reported so far. */
  payouts: number | null;
  reported: number;
  /** The period's summary (the whole report is in the ledger's reports, by `reportId`). */
  report: PayoutPeriodReportSummary | PayoutPeriodReport | null;
}

export const payoutReportViewQuery = defineQuery<PayoutReportView>('view');
export const payoutPeriodReportViewQuery = defineQuery<PayoutPeriodReportView>('view');

export function payoutReportWorkflowId(disbursementId: string): string {
  return workflowIdFor(payoutReportWorkflowType, disbursementId);
}

export function payoutPeriodReportWorkflowId(period: PayoutPeriod): string {
  return workflowIdFor(payoutPeriodReportWorkflowType, `${period.from}_${period.to}`);
}

// On demand, with a person waiting: a few attempts, then the failure shows instead of retrying for ever.
const activities = () =>
  proxyActivities<PayoutReportActivities>({
    startToCloseTimeout: '5m',
    retry: { ...serviceCallRetry, maximumAttempts: 5 },
  });

/** The memo the Temporal UI lists: the report's headline, not its lines. */
function headline(report: PayoutReport) {
  return {
    status: report.status,
    amountCents: report.amountCents,
    netCents: report.totals.netCents,
    reachedBankCents: report.reachedBankCents,
    mismatches: report.mismatches.map((m) => m.reason),
  };
}

/**
 * The payout report of one disbursement: its payments, absorbed fees, refunds and returns, the net beside the
 * amount sent, and every mismatch with its reason. Its result (and `view` query) is the stored report; run
 * again under the same id for a fresh one.
 */
export async function payoutReport(input: PayoutReportInput): Promise<PayoutReport> {
  const view: PayoutReportView = { state: 'RUNNING', report: null };
  setHandler(payoutReportViewQuery, () => view);
  upsertSearchAttributes([
    { key: ServiceObjectId, value: input.disbursementId },
    { key: SyncState, value: 'REPORTING' },
  ]);
  const report = await activities().buildPayoutReport(input);
  view.report = report;
  view.state = 'DONE';
  upsertMemo({ payout: headline(report) });
  upsertSearchAttributes([
    { key: SyncState, value: 'DONE' },
    { key: ServiceStatus, value: report.status },
    { key: AmountCents, value: report.amountCents },
    ...attention(null, !report.reconciles),
  ]);
  log.info('payout report done', { disbursementId: input.disbursementId, ...headline(report) });
  return report;
}

// The period's report in one activity, which stores it whole and returns its summary: a busy period's report
// (every payout with its payments) is megabytes, past what a workflow result or its history may carry.
const periodReportActivity = () =>
  proxyActivities<PayoutReportActivities>({
    startToCloseTimeout: '30m',
    heartbeatTimeout: '5m',
    retry: { ...serviceCallRetry, maximumAttempts: 5 },
  });

/**
 * The payout reports of every disbursement batched in the period and their sums: made and stored whole in the
 * ledger's reports by one activity; the result is its summary (totals, the first payouts that do not
 * reconcile, the stored id). Runs recorded before the summaries reported each payout by an activity of its
 * own and returned the whole report.
 */
export async function payoutPeriodReport(
  period: PayoutPeriod,
): Promise<PayoutPeriodReportSummary | PayoutPeriodReport> {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  if (!day.test(period?.from ?? '') || !day.test(period?.to ?? '') || period.from > period.to) {
    throw ApplicationFailure.nonRetryable(`bad period ${JSON.stringify(period)}`, 'BadPeriod');
  }
  const view: PayoutPeriodReportView = { state: 'RUNNING', payouts: null, reported: 0, report: null };
  setHandler(payoutPeriodReportViewQuery, () => view);
  upsertSearchAttributes([{ key: SyncState, value: 'REPORTING' }]);
  if (patched('payout-period-report-stored')) {
    const summary = await periodReportActivity().buildPayoutPeriodReport(period);
    view.payouts = summary.totals.payouts;
    view.reported = summary.totals.payouts;
    view.report = summary;
    view.state = 'DONE';
    upsertMemo({ period: summary.totals });
    upsertSearchAttributes([{ key: SyncState, value: 'DONE' }, ...attention(null, !summary.reconciles)]);
    log.info('payout period report done', { ...period, ...summary.totals, reportId: summary.reportId });
    return summary;
  }
  const { listPayoutsInPeriod, buildPayoutReport } = activities();
  const ids = await listPayoutsInPeriod(period);
  view.payouts = ids.length;
  const reports: PayoutReport[] = [];
  for (const disbursementId of ids) {
    reports.push(await buildPayoutReport({ disbursementId }));
    view.reported = reports.length;
  }
  const report = periodReport(period, reports);
  view.report = report;
  view.state = 'DONE';
  upsertMemo({ period: report.totals });
  upsertSearchAttributes([{ key: SyncState, value: 'DONE' }, ...attention(null, !report.reconciles)]);
  log.info('payout period report done', { ...period, ...report.totals });
  return report;
}
