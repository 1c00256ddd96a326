// The service's resources, requests and responses (spec part 2, part 4, docs/service-decisions.md).
// Types come from z.infer only.
export * from './bill.js';
export * from './charge-authorization.js';
export * from './check-deposit.js';
export * from './customer.js';
export * from './debit-memo.js';
export * from './disbursement.js';
export * from './error-body.js';
export * from './event.js';
export * from './external-payment.js';
export * from './file.js';
export * from './lists.js';
export * from './pagination.js';
export * from './payment.js';
export * from './payment-link.js';
export * from './payment-method.js';
export * from './primitives.js';
export * from './refund.js';
export * from './vendor.js';
export * from './webhook.js';
