import type { FetchedState } from '../service/fetched-state.js';
import type { TargetFigures } from '../targets/target-figures.js';

// What a period's close reads (certificate.ts decides from it, certificate-checks.ts and expected-objects.ts
// check it): the period, the service's objects and the ledger's entries, the open items, and the accounting
// targets' index and own figures.

export interface ClosePeriod {
  from: string;
  to: string;
}

export interface TargetIndexView {
  target: string;
  /** The index status of each entry key asked about; absent keys are not indexed yet. */
  statuses: ReadonlyMap<string, { status: string; reason: string | null }>;
}

/** A target's own figures as of the period's last day, or why they could not be read. */
export type TargetFiguresRead =
  | { target: string; figures: TargetFigures }
  | { target: string; error: string };

/** The service's objects and every entry of the ledger (FetchedState), and what the checks compare them with. */
export interface CloseInput extends FetchedState {
  period: ClosePeriod;
  asOf: string;
  /** BOOKS_TIME_ZONE: the service's times are dated as business days in it, as the entries are. */
  timeZone: string;
  /**
   * PAYOUT_BANK_ACCOUNTS: a payout to one of these accounts (last four digits) is received in Payout Bank and
   * compared there; unset or empty, every payout is the Operating Bank's.
   */
  payoutBankAccounts?: readonly string[];
  /**
   * Open items as the ledger reports them now (as of the run: the service's documents have no history).
   * The balances are not passed: they are worked out from `entries`, as of the period's end.
   */
  receivables: readonly { documentId: string | null; openCents: number }[];
  payables: readonly { documentId: string | null; openCents: number }[];
  targets: readonly TargetIndexView[] | null;
  /**
   * Each reporting target's own figures as of the period's last day, or why they could not be read; null
   * when no target reports figures.
   */
  targetFigures?: readonly TargetFiguresRead[] | null;
  /** How many BOOKED objects to list at most (default 2000); the rest are only counted. */
  maxListedBooked?: number;
}
