// Every workflow booksync's worker runs; the bundler starts here.
export { checkDeposit } from './check-deposit.js';
export { disbursement } from './disbursement.js';
export { payment } from './payment.js';
export { paymentLink } from './payment-link.js';
