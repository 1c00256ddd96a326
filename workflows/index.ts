// Every workflow booksync's worker runs; the bundler starts here.
export { disbursement } from './disbursement.js';
export { payment } from './payment.js';
