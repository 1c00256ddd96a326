// Every workflow booksync's worker runs; the bundler starts here.
export { payment } from './payment.js';
