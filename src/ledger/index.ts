// The accounting side of booksync: the port activities write through, the embedded ledger behind it,
// the mappings from service objects to entries, and the hledger export.
export * from './chart-of-accounts.js';
export * from './embedded-ledger.js';
export * from './entry.js';
export * from './entry-key.js';
export * from './errors.js';
export * from './hledger-export.js';
export * from './ledger-port.js';
export * from './mapping/index.js';
export * from './money.js';
export * from './reports.js';
export * from './sync.js';
