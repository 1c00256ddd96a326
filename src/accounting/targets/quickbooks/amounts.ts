// Shared with the other cloud targets: ../decimal-amounts.ts.
export { amountToCents, centsToAmount } from '../decimal-amounts.js';
