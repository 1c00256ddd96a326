import {
  payoutBooks,
  type ReturnedRefundCredit,
  returnedRefundCredits,
} from '../src/payouts/payout-books.js';
import { payoutReport } from '../src/payouts/payout-report.js';
import type { Payment } from '../src/service/schemas/index.js';
import { inPeriod } from '../src/workflow-safe/period-report.js';
import { type ActivityDependencies, activityLogger } from './context.js';
import { translatingFailures } from './failures.js';
import type { PayoutPeriod, PayoutReportActivities, PayoutReportInput } from './payout-report-contract.js';

const listPageSize = 100;

export function createPayoutReportActivities(deps: ActivityDependencies): PayoutReportActivities {
  return {
    async buildPayoutReport({ disbursementId }: PayoutReportInput) {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { disbursementId });
        const disbursement = await deps.service.getDisbursement(disbursementId);
        // One at a time: a payout can hold hundreds of payments, and the service's rate limit is shared.
        const payments: Payment[] = [];
        const credits: ReturnedRefundCredit[] = [];
        for (const paymentId of disbursement.paymentIds) {
          const payment = await deps.service.getPayment(paymentId);
          payments.push(payment);
          const listed = new Set(payment.refunds.map((refund) => refund.id));
          credits.push(
            ...returnedRefundCredits(paymentId, await deps.ledger.entriesFor({ paymentId }), listed),
          );
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
      });
    },

    async listPayoutsInPeriod(period: PayoutPeriod) {
      return translatingFailures(async () => {
        const ids: string[] = [];
        for (let page = 1; ; page++) {
          const list = await deps.service.listDisbursements({ page, pageSize: listPageSize });
          for (const d of list.disbursements) if (inPeriod(d.createdAt, period)) ids.push(d.id);
          if (list.disbursements.length === 0 || page * listPageSize >= list.totalResults) break;
        }
        activityLogger(deps, period).info({ payouts: ids.length }, 'payouts of the period listed');
        return ids;
      });
    },
  };
}
