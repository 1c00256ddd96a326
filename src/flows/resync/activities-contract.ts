// The contract between the resync workflow and its activity (implementation: src/flows/resync/activities.ts). Types only.

import type { ResyncDiff } from '../../resync/plan.js';

export type { ResyncDiff } from '../../resync/plan.js';

export interface ResyncInput {
  /** YYYY-MM-DD: only entries dated on or after it; omitted: every entry. */
  since?: string | null;
  /** false: compute and return the diff only (dry run). true: apply it, and return what was applied. */
  apply: boolean;
}

export interface ResyncResult {
  applied: boolean;
  diff: ResyncDiff;
  /** What the ledger wrote (created: false for a write found already done, e.g. by a retried attempt). */
  reversed: string[];
  posted: string[];
}

export interface ResyncActivities {
  /** Fetches the service's objects and the books, maps them with the current code and settings, and diffs. */
  resyncBooks(input: ResyncInput): Promise<ResyncResult>;
}
