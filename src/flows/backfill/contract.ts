// The backfill flow's contract, imported by its workflow, its activities and the CLI (samples-typescript's
// shared-module policy): input, progress view and query, result, workflow id, activity interface.

import { defineQuery } from '@temporalio/workflow';
import type { AccountName } from '../../ledger/chart-of-accounts.js';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';

export const backfillWorkflowType = 'backfill';

/** What a backfill walks, in order: links (with their payments), payments on no link, payouts, deposits. */
export const backfillPhases = ['links', 'payments', 'disbursements', 'checkDeposits'] as const;
export type BackfillPhase = (typeof backfillPhases)[number];

export interface BackfillInput {
  /** YYYY-MM-DD: the day the books open; history from it on is imported. */
  since: string;
  /** YYYY-MM-DD: today, fixed at the start so every retried page classifies alike (ACH return windows). */
  asOf: string;
  /** The bound on service requests (list pages) per second. */
  requestsPerSecond: number;
  pageSize?: number;
  /** Where to continue and what was done so far (continue-as-new); omitted at the start. */
  pageToken?: string | null;
  progress?: BackfillProgress;
}

/**
 * How a backfill run goes: `opening` sums what settled groups left in flight for the opening entry; `again`
 * (the opening entry of that day is booked: an earlier backfill finished) syncs every group as the event
 * flows do and sums nothing, so running it again changes nothing.
 */
export type BackfillMode = 'opening' | 'again';

export interface BackfillProblem {
  object: string;
  id: string;
  error: string;
}

export interface BackfillProgress {
  since: string;
  mode: BackfillMode;
  phase: BackfillPhase | 'opening' | 'done';
  startedAt: string;
  finishedAt: string | null;
  /** Objects seen, per phase, and the service's own count of each listing (its totalResults). */
  examined: Record<BackfillPhase, number>;
  totals: Partial<Record<BackfillPhase, number>>;
  /** Object groups imported whole, and groups settled before the books open (their money in the opening). */
  imported: number;
  settled: number;
  requests: number;
  pages: number;
  /** The money settled groups left in flight, by account: the opening entry's lines. */
  inFlight: Partial<Record<AccountName, number>>;
  /** Objects it could not book (an unmappable state, a conflict): left for a person; capped. */
  problems: BackfillProblem[];
  /** The opening entry's key, once booked; null when nothing was in flight. */
  openingEntryKey: string | null;
}

export const backfillProgressQuery = defineQuery<BackfillProgress>('progress');

export function backfillWorkflowId(since: string): string {
  return workflowIdFor(backfillWorkflowType, since);
}

export interface BackfillPageInput {
  since: string;
  asOf: string;
  mode: BackfillMode;
  /** `phase:page`; null starts at the first phase. */
  pageToken: string | null;
  pageSize: number;
}

/** What a page counts, and a step sums over its pages. */
export interface BackfillCounts {
  imported: number;
  settled: number;
  requests: number;
  inFlight: Partial<Record<AccountName, number>>;
  problems: BackfillProblem[];
  /** Imported payments that can still change (PENDING, ACH in its return window): their flows start now. */
  paymentsToWatch: string[];
}

/** The counts of a page or step that has done nothing yet. */
export function noBackfillCounts(): BackfillCounts {
  return { imported: 0, settled: 0, requests: 0, inFlight: {}, problems: [], paymentsToWatch: [] };
}

/** Adds money in flight, by account, to a running sum. */
export function addInFlight(
  sum: Partial<Record<AccountName, number>>,
  more: Partial<Record<AccountName, number>>,
): void {
  for (const [account, cents] of Object.entries(more) as [AccountName, number][]) {
    sum[account] = (sum[account] ?? 0) + cents;
  }
}

export interface BackfillPageResult extends BackfillCounts {
  phase: BackfillPhase;
  /** null: every phase is done. */
  nextPageToken: string | null;
  /** The listing's totalResults. */
  total: number;
  examined: number;
}

export interface BackfillStepInput extends BackfillPageInput {
  /** The bound on service requests (list pages) per second, kept by the activity between pages. */
  requestsPerSecond: number;
  /** Pages at most in one activity (fewer when its time budget runs out or the phases end). */
  maxPages: number;
}

/** Several pages of one activity, summed: fewer round trips to Temporal, one result to record per step. */
export interface BackfillStepResult extends Omit<BackfillPageResult, 'total' | 'examined'> {
  pages: number;
  /** Per phase: the listing's totalResults and the objects examined (`phase`: the last page's). */
  totals: Partial<Record<BackfillPhase, number>>;
  examined: Partial<Record<BackfillPhase, number>>;
}

export interface BackfillActivities {
  /**
   * Sets the day the books open (once; the same day again is a no-op, another day fails for good) and says
   * how this run goes: `again` when an earlier backfill since the day booked its opening balances.
   */
  openBooks(input: { since: string }): Promise<{ opensOn: string; mode: BackfillMode }>;
  /**
   * Up to `maxPages` pages from `pageToken` on, each importing its open groups whole and summing its settled
   * groups' money in flight, at most `requestsPerSecond` list requests a second.
   */
  backfillPages(input: BackfillStepInput): Promise<BackfillStepResult>;
  /**
   * Books the opening entry from the summed money in flight (none when nothing was), then records the
   * opening balances booked; returns the entry's key, or null when none.
   */
  bookOpeningBalances(input: {
    since: string;
    inFlight: Partial<Record<AccountName, number>>;
  }): Promise<string | null>;
  /**
   * Starts the payment workflow of each ACH payment still in its return window (one already running is left
   * as it is), from the activity's own client: a backfill watches thousands, and as children of its run they
   * would pass Temporal's 2,000 pending children. Returns how many it started.
   */
  watchPaymentWindows(input: { paymentIds: string[] }): Promise<number>;
}
