import { createAccountingTargetActivities } from './accounting-target.js';
import { createBackfillActivities } from './backfill.js';
import { createBillPaymentActivities } from './bill-payment.js';
import { createCheckDepositActivities } from './check-deposit.js';
import type { ActivityDependencies } from './context.js';
import { createDepositSlipActivities } from './deposit-slip.js';
import { createDisbursementActivities } from './disbursement.js';
import { createPaymentActivities } from './payment.js';
import { createPaymentLinkActivities } from './payment-link.js';
import { createPayoutReportActivities } from './payout-report.js';
import { createPeriodCloseActivities } from './period-close.js';
import { createReconciliationActivities } from './reconciliation.js';
import { createResyncActivities } from './resync.js';
import { createServiceRecordActivities } from './service-records.js';

export type { ActivityDependencies } from './context.js';

/** Every activity booksync's worker registers, bound to the process's service client, ledger and logger. */
export function createActivities(deps: ActivityDependencies) {
  return {
    ...createPaymentActivities(deps),
    ...createDisbursementActivities(deps),
    ...createCheckDepositActivities(deps),
    ...createDepositSlipActivities(deps),
    ...createPaymentLinkActivities(deps),
    ...createBillPaymentActivities(deps),
    ...createServiceRecordActivities(deps),
    ...createReconciliationActivities(deps),
    ...createAccountingTargetActivities(deps),
    ...createPayoutReportActivities(deps),
    ...createPeriodCloseActivities(deps),
    ...createResyncActivities(deps),
    ...createBackfillActivities(deps),
  };
}
