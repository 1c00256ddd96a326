import type { TargetSummary } from './target-index.js';

// The contract between the accounting-target push workflow and its activities (implementation:
// src/flows/push/activities.ts, one attempt's work in src/flows/push/attempt.ts). Types only.

export interface PushToTargetInput {
  target: string;
  /** At most this many entries per activity run, so a backlog is pushed in heartbeated slices. */
  limit: number;
}

export interface PushToTargetResult {
  pushed: number;
  /** Entries this run marked FAILED, with the target's message. */
  failed: { key: string; reason: string }[];
  /** true when the slice was full: more entries wait. */
  more: boolean;
  summary: TargetSummary;
  /** The target's warning after this slice (AccountingTarget.warning); absent from older results. */
  warning?: string | null;
}

export interface RequeueTargetEntriesInput {
  target: string;
  keys: 'failed' | string[];
}
