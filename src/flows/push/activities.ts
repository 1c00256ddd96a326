import { ApplicationFailure } from '@temporalio/common';
import { type ActivityDependencies, activityLogger } from '../in-activity/context.js';
import type {
  PushToTargetInput,
  PushToTargetResult,
  RequeueTargetEntriesInput,
} from './activities-contract.js';
import { PushAttempt } from './attempt.js';

// The push to the accounting targets: the activities (their contract, what the workflow passes and gets
// back, is accounting-target-contract.ts); one attempt's work is a PushAttempt (push-attempt.ts).

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
