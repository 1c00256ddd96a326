import type { LedgerPort } from '../ledger/ledger-port.js';
import { passedThrough } from '../ledger/ledger-reads.js';

/**
 * The ledger the activities write through when targets are configured: every new entry (not a no-op
 * repeat) calls `onNewEntry`, which wakes the push workflows. Every other method of the port passes
 * straight through: a decorator of the whole port, so whatever the activities use works with or without
 * targets (test/ledger/ledger-decorators.test.ts holds each decorator to the port's methods).
 */
export function notifyingLedger(ledger: LedgerPort, onNewEntry: () => void): LedgerPort {
  return {
    async post(entry) {
      const result = await ledger.post(entry);
      if (result.created) onNewEntry();
      return result;
    },
    async reverse(key, options) {
      const result = await ledger.reverse(key, options);
      if (result.created) onNewEntry();
      return result;
    },
    async postMany(entries) {
      const results = await ledger.postMany(entries);
      if (results.some((r) => r.created)) onNewEntry();
      return results;
    },
    ...passedThrough(ledger),
  };
}
