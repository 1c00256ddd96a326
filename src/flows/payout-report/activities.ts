import type { Payment } from '@booksync/service-contract/schemas/index';
import { Context } from '@temporalio/activity';
import { payoutBooks, type ReturnedRefundCredit, returnedRefundCredits } from '../../payouts/payout-books.js';
import { payoutReport } from '../../payouts/payout-report.js';
import { periodReportSummary } from '../../payouts/period-summary.js';
import { inPeriod, periodReport } from '../../workflow-safe/period-report.js';
import { type ActivityDependencies, activityLogger, reportStoreOf } from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import type {
  PayoutPeriod,
  PayoutPeriodReportSummary,
  PayoutReport,
  PayoutReportActivities,
  PayoutReportInput,
} from './activities-contract.js';

const listPageSize = 100;

/** The report of one disbursement: its payments (one at a time), refunds, returns and what the books hold. */
async function payoutReportOf(deps: ActivityDependencies, disbursementId: string): Promise<PayoutReport> {
  const log = activityLogger(deps, { disbursementId });
  const disbursement = await deps.service.getDisbursement(disbursementId);
  // One at a time: a payout can hold hundreds of payments, and the service's rate limit is shared.
  const payments: Payment[] = [];
  const credits: ReturnedRefundCredit[] = [];
  for (const paymentId of disbursement.paymentIds) {
    const payment = await deps.service.getPayment(paymentId);
    payments.push(payment);
    const listed = new Set(payment.refunds.map((refund) => refund.id));
    credits.push(...returnedRefundCredits(paymentId, await deps.ledger.entriesFor({ paymentId }), listed));
  }
  const books = payoutBooks(await deps.ledger.entriesFor({ disbursementId }));
  const report = payoutReport({
    disbursement,
    payments,
    books,
    returnedRefundCredits: credits,
    computedAt: new Date().toISOString(),
  });
  log.info(
    {
      status: report.status,
      amountCents: report.amountCents,
      netCents: report.totals.netCents,
      mismatches: report.mismatches.map((m) => m.reason),
    },
    'payout report built',
  );
  return report;
}

/** The ids of the disbursements batched in the period, oldest first. */
async function payoutsInPeriod(deps: ActivityDependencies, period: PayoutPeriod): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const list = await deps.service.listDisbursements({ page, pageSize: listPageSize });
    for (const d of list.disbursements) if (inPeriod(d.createdAt, period)) ids.push(d.id);
    if (list.disbursements.length === 0 || page * listPageSize >= list.totalResults) break;
  }
  activityLogger(deps, period).info({ payouts: ids.length }, 'payouts of the period listed');
  return ids;
}

/** Tells Temporal the activity is alive (a long period reports payout after payout); nothing outside one. */
function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Called outside an activity (a test calling the factory's function directly).
  }
}

export function createPayoutReportActivities(deps: ActivityDependencies): PayoutReportActivities {
  return {
    async buildPayoutReport({ disbursementId }: PayoutReportInput) {
      return translatingFailures(() => payoutReportOf(deps, disbursementId));
    },

    async listPayoutsInPeriod(period: PayoutPeriod) {
      return translatingFailures(() => payoutsInPeriod(deps, period));
    },

    async buildPayoutPeriodReport(period: PayoutPeriod): Promise<PayoutPeriodReportSummary> {
      return translatingFailures(async () => {
        const reports = reportStoreOf(deps);
        const ids = await payoutsInPeriod(deps, period);
        const payouts: PayoutReport[] = [];
        for (const disbursementId of ids) {
          payouts.push(await payoutReportOf(deps, disbursementId));
          heartbeat({ reported: payouts.length, payouts: ids.length });
        }
        const report = periodReport(period, payouts);
        // Whole in the ledger's reports; the workflow's result is the summary (bounded whatever the period).
        const stored = await reports.storeReport({ kind: 'payout-period-report', period, document: report });
        activityLogger(deps, period).info(
          { ...report.totals, reportId: stored.id, bytes: stored.bytes },
          'payout period report stored',
        );
        return periodReportSummary(report, stored);
      });
    },
  };
}
