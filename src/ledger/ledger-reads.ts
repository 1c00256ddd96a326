import type { LedgerPort } from './ledger-port.js';

/** The port's methods that write entries: what a decorator of the ledger wraps. */
export type LedgerWrites = Pick<LedgerPort, 'post' | 'reverse' | 'postMany'>;

/**
 * Every method of the port but the entry writes, passed straight to `ledger`: the part each decorator of the
 * ledger (notifying, traced) shares, so a method added to the port reaches them all through one place
 * (test/ledger/ledger-decorators.test.ts holds each decorator to the port's methods).
 */
export function passedThrough(ledger: LedgerPort): Omit<LedgerPort, keyof LedgerWrites> {
  return {
    get: (key) => ledger.get(key),
    getMany: (keys) => ledger.getMany(keys),
    isReversed: (key) => ledger.isReversed(key),
    entriesFor: (filter) => ledger.entriesFor(filter),
    entriesWithLink: (field) => ledger.entriesWithLink(field),
    entries: (options) => ledger.entries(options),
    allEntries: () => ledger.allEntries(),
    balances: () => ledger.balances(),
    trialBalance: () => ledger.trialBalance(),
    balanceOf: (account) => ledger.balanceOf(account),
    openItems: (side) => ledger.openItems(side),
    booksOpenOn: () => ledger.booksOpenOn(),
    booksOpening: () => ledger.booksOpening(),
    openBooks: (date) => ledger.openBooks(date),
    markOpeningBalancesBooked: (date) => ledger.markOpeningBalancesBooked(date),
    booksClosedThrough: () => ledger.booksClosedThrough(),
    booksClosings: () => ledger.booksClosings(),
    closeBooks: (through, record) => ledger.closeBooks(through, record),
    recordWriteOff: (writeOff) => ledger.recordWriteOff(writeOff),
    withdrawWriteOff: (id) => ledger.withdrawWriteOff(id),
    writeOffsFor: (paymentLinkId) => ledger.writeOffsFor(paymentLinkId),
  };
}
