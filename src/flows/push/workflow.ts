import {
  ActivityFailure,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { showLastError } from '../in-workflow/attention.js';
import { failureCode, pushLastError } from '../in-workflow/last-error-reason.js';
import type { AccountingTargetActivities } from './activities.js';
import {
  type AccountingTargetInput,
  type AccountingTargetView,
  accountingTargetViewQuery,
  entriesPostedSignal,
  retryEntriesSignal,
} from './contract.js';

/** A write missed by the signal (a worker crash between the write and the signal) is pushed by then. */
const defaultPollEvery = '1 minute';
const defaultRetryMaximumInterval = '1m';
const defaultHeartbeatTimeout = '1m';
const defaultSliceSize = 100;

/**
 * Pushes the ledger to one accounting target, in posting order, for as long as the target is configured:
 * after each ledger write (signal) or poll, until nothing is pending. Refusals end FAILED in the index and
 * flag the run (NeedsAttention) until `booksync targets retry` after the fix; outages are retried by
 * the activity's policy, honouring the target's Retry-After.
 */
export async function accountingTarget(input: AccountingTargetInput): Promise<void> {
  const { pushToTarget, requeueTargetEntries } = proxyActivities<AccountingTargetActivities>({
    startToCloseTimeout: '5m',
    heartbeatTimeout: input.heartbeatTimeout ?? defaultHeartbeatTimeout,
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: input.retryMaximumInterval ?? defaultRetryMaximumInterval,
      nonRetryableErrorTypes: ['NoTargetError'],
    },
  });
  const view: AccountingTargetView = {
    target: input.target,
    state: 'PUSHING',
    pending: 0,
    pushed: 0,
    failed: 0,
    skipped: 0,
    lastFailures: [],
    lastError: null,
  };
  let posted = true;
  const retries: ('failed' | string[])[] = [];
  setHandler(entriesPostedSignal, () => {
    posted = true;
  });
  setHandler(retryEntriesSignal, ({ keys }) => {
    retries.push(keys);
  });
  setHandler(accountingTargetViewQuery, () => view);
  let shownError: string | null = null;
  let failure: string | null = null;

  while (!workflowInfo().continueAsNewSuggested) {
    await condition(() => posted || retries.length > 0, input.pollEvery ?? defaultPollEvery);
    posted = false;
    try {
      for (const keys of retries.splice(0)) await requeueTargetEntries({ target: input.target, keys });
      view.state = 'PUSHING';
      for (;;) {
        const result = await pushToTarget({
          target: input.target,
          limit: input.sliceSize ?? defaultSliceSize,
        });
        Object.assign(view, {
          pending: result.summary.pending,
          pushed: result.summary.pushed,
          failed: result.summary.failed,
          skipped: result.summary.skipped,
          lastFailures: result.summary.failures
            .slice(-5)
            .map((f) => ({ key: f.key, reason: f.reason ?? '' })),
          warning: result.warning ?? null,
        });
        if (result.more) continue;
        // Entries written since the slice was read (their wake-up may be lost: a worker that died between
        // the write and the signal) are taken now, while the push makes progress, not at the next poll.
        // Runs recorded before waited for the signal or the poll.
        const backlog = result.summary.pending > 0 && result.pushed > 0;
        if (!backlog || !patched('push-while-pending')) break;
      }
      view.state = 'IDLE';
      view.lastError = null;
      failure = null;
    } catch (error) {
      view.state = 'WAITING_FOR_TARGET';
      failure = failureCode(error);
      view.lastError =
        error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
    }
    const failures = view.lastFailures.at(-1);
    // LastError is a search attribute: stored and shown as it is, never through the payload codec. A target's
    // text (its refusal, its answer while down) may quote a customer's name or an invoice number, so the
    // attribute is a reason code and the entry's key (last-error-reason.ts); the text stays in the run's
    // query view, the target index (`booksync targets status`, the console) and the encoded activity results.
    // Runs recorded before show what they did: the refused entry without its refusal, or earlier all of it.
    const coded = patched('last-error-reason-codes');
    const searchable = !coded && patched('last-error-without-target-messages');
    shownError = showLastError(
      shownError,
      coded
        ? pushLastError(failure, { count: view.failed, key: failures?.key }, view.warning)
        : searchable
          ? (view.lastError ??
            (view.failed > 0 && failures ? `${view.failed} FAILED, last ${failures.key}` : null) ??
            view.warning ??
            null)
          : (view.lastError ??
            (view.failed > 0 && failures
              ? `${view.failed} FAILED, last ${failures.key}: ${failures.reason}`
              : null) ??
            // Results recorded by older releases carry no warning: their replay upserts exactly as before.
            view.warning ??
            null),
    );
  }
  await continueAsNew<typeof accountingTarget>(input);
}
