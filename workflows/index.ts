// Every workflow booksync's worker runs; the bundler starts here.

export { accountingTarget } from './accounting-target.js';
export { backfill } from './backfill.js';
export { billPayment } from './bill-payment.js';
export { chargeAuthorization } from './charge-authorization.js';
export { checkDeposit } from './check-deposit.js';
export { depositSlip } from './deposit-slip.js';
export { disbursement } from './disbursement.js';
export { payment } from './payment.js';
export { paymentLink } from './payment-link.js';
export { payoutPeriodReport, payoutReport } from './payout-report.js';
export { periodClose } from './period-close.js';
export { reconciliation } from './reconciliation.js';
export { reconciliationRequests } from './reconciliation-requests.js';
export { resync } from './resync.js';
export { vendorDeliveryMethods } from './vendor-delivery-methods.js';
