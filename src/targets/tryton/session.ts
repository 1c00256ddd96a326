import type { Logger } from '../../logging/logger.js';
import type { AccountMapping, VendorExpenseAccounts } from '../account-mapping.js';
import type { LockReader } from '../closed-periods.js';
import type { TrytonRpc } from './json-rpc.js';

export interface TrytonTargetOptions {
  url: string;
  database: string;
  username: string;
  password: string;
  accounts: AccountMapping;
  /** VENDOR_EXPENSE_ACCOUNTS: the vendors whose bills are expensed to an account of their own. */
  vendorExpenses?: VendorExpenseAccounts;
  matching: 'create' | 'match-existing';
  logger?: Logger;
  timeoutMs?: number;
  /**
   * How long the invoices of a reconciliation booksync made or removed may take to show its state (Tryton's
   * worker processes them after the request) before the push is unavailable; default 60 s.
   */
  processedWithinMs?: number;
  /** The HTTP client (default: the global fetch); the bench times Tryton's calls through it. */
  fetch?: typeof fetch;
}

/**
 * What the Tryton adapter's modules (records, parties, posting, invoices, moves, reversals, reconciliation)
 * share for one TrytonTarget: its connection and options, and what it caches for the life of the process
 * (the journals and payment term read at verify, parties and periods once found, the last issue date).
 */
export interface TrytonSession {
  readonly name: 'tryton';
  readonly rpc: TrytonRpc;
  readonly options: TrytonTargetOptions;
  readonly journals: Map<string, number>;
  /** Each vendor's own expense account (VENDOR_EXPENSE_ACCOUNTS) by the service's vendor id, as verify found it. */
  readonly vendorExpenseIds: Map<string, number>;
  paymentTerm: number | null;
  readonly parties: Map<string, number>;
  readonly periods: Map<string, number>;
  readonly locks: LockReader;
  /** The latest issue date of a customer invoice in Tryton, as far as this process knows (posting.ts issueDate). */
  lastIssued: string | null;
}
