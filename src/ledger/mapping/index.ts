// Pure mappings from fetched service objects to the entries that should exist, and the diff against what
// is booked. No I/O and no Node built-ins, so workflow code may use them too.
export * from './bill.js';
export * from './bill-payment.js';
export * from './check-deposit.js';
export * from './dates.js';
export * from './deposit-slip.js';
export * from './disbursement.js';
export * from './entry-diff.js';
export * from './invoice.js';
export * from './opening-bill.js';
export * from './opening-document.js';
export * from './payment.js';
export * from './payment-link.js';
