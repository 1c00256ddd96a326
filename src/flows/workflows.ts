// Every workflow booksync's worker runs; the bundler starts here.

export { backfill } from './backfill/workflow.js';
export { billPayment } from './bill-payment/workflow.js';
export { chargeAuthorization } from './charge-authorization/workflow.js';
export { checkDeposit } from './check-deposit/workflow.js';
export { depositSlip } from './deposit-slip/workflow.js';
export { disbursement } from './disbursement/workflow.js';
export { payment } from './payment/workflow.js';
export { paymentLink } from './payment-link/workflow.js';
export { payoutPeriodReport, payoutReport } from './payout-report/workflow.js';
export { periodClose } from './period-close/workflow.js';
export { accountingTarget } from './push/workflow.js';
export { reconciliationRequests } from './reconciliation/requests.js';
export { reconciliation } from './reconciliation/workflow.js';
export { resync } from './resync/workflow.js';
export { vendorDeliveryMethods } from './vendor-delivery-methods/workflow.js';
