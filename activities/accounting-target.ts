import { ApplicationFailure } from '@temporalio/common';
import type { ReferenceData } from '../src/targets/documents.js';
import type { TargetIndexStore, TargetSummary } from '../src/targets/target-index.js';
import type { AccountingTarget } from '../src/targets/target-port.js';
import { type ActivityDependencies, activityLogger } from './context.js';
import { PushAttempt } from './push-attempt.js';

// The push to the accounting targets: its contract (what the workflow passes and gets back) and the
// activities; one attempt's work is a PushAttempt (push-attempt.ts).

/** What the push needs besides the other activities' dependencies; built by the worker when targets exist. */
export interface TargetPushDependencies {
  targets: ReadonlyMap<string, AccountingTarget>;
  index: TargetIndexStore;
  references: ReferenceData;
  /**
   * PUSH_IN_FLIGHT_WAIT_SECONDS in ms: the longest an attempt waits for an earlier attempt's write still in
   * flight (waitForEarlierWrites) before it looks the entry up at the target.
   */
  inFlightWaitMs: number;
}

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

export function createAccountingTargetActivities(deps: ActivityDependencies) {
  const push = () => {
    if (!deps.targets)
      throw ApplicationFailure.nonRetryable('no accounting target configured', 'NoTargetError');
    return deps.targets;
  };

  return {
    /**
     * Pushes the next entries, in posting order, to one target. Each entry ends PUSHED or FAILED (a refusal
     * retrying cannot fix, with the target's message) and the slice goes on; an outage or rate limit fails
     * the activity, which Temporal retries (after the target's Retry-After), resuming at the same entry.
     */
    pushToTarget: (input: PushToTargetInput): Promise<PushToTargetResult> =>
      new PushAttempt(deps, push(), input).run(),

    /** `booksync targets retry`: FAILED entries (all, or the keys given) are queued for the next push. */
    async requeueTargetEntries({ target, keys }: RequeueTargetEntriesInput): Promise<number> {
      const requeued = await push().index.requeue(target, keys);
      activityLogger(deps, { target }).info({ requeued, keys }, 'target entries queued again');
      return requeued;
    },
  };
}

export type AccountingTargetActivities = ReturnType<typeof createAccountingTargetActivities>;
