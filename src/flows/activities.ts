import { createBackfillActivities } from './backfill/activities.js';
import { createBillPaymentActivities } from './bill-payment/activities.js';
import { createCheckDepositActivities } from './check-deposit/activities.js';
import { createDepositSlipActivities } from './deposit-slip/activities.js';
import { createDisbursementActivities } from './disbursement/activities.js';
import type { ActivityDependencies } from './in-activity/context.js';
import { createServiceRecordActivities } from './in-activity/service-records.js';
import { createPaymentActivities } from './payment/activities.js';
import { createPaymentLinkActivities } from './payment-link/activities.js';
import { createPayoutReportActivities } from './payout-report/activities.js';
import { createPeriodCloseActivities } from './period-close/activities.js';
import { createAccountingTargetActivities } from './push/activities.js';
import { createReconciliationActivities } from './reconciliation/activities.js';
import { createResyncActivities } from './resync/activities.js';

export type { ActivityDependencies } from './in-activity/context.js';

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
