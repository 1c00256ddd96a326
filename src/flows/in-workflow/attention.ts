import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, upsertSearchAttributes } from '@temporalio/workflow';
import { LastError, NeedsAttention } from '../../workflow-safe/search-attributes.js';

// Flagging a run for a person, the one way every flow does it: NeedsAttention (the Temporal UI's list of runs
// to look at) and LastError (why, cut to 200 characters), as search attributes.

/**
 * The attention attributes of a run: with an error, NeedsAttention and LastError; without one, NeedsAttention
 * as `flagged` says (default false: clear it), e.g. a payout whose amount does not match its payments.
 */
export function attention(
  lastError: string | null,
  flagged = lastError !== null,
): SearchAttributeUpdatePair[] {
  if (lastError === null) return [{ key: NeedsAttention, value: flagged }];
  return [
    { key: NeedsAttention, value: true },
    { key: LastError, value: lastError.slice(0, 200) },
  ];
}

/**
 * Shows `next` as the run's last error: flags the run while there is one and clears NeedsAttention once it is
 * gone. Upserts only when it changed; returns the error now shown.
 */
export function showLastError(shown: string | null, next: string | null): string | null {
  if (next === shown) return shown;
  upsertSearchAttributes(attention(next));
  return next;
}

/** A run's state that records why a fetch failed for good (src/flows/in-workflow/fetched-run.ts). */
interface FailedFetchRecorder {
  readonly view: { lastError: string | null };
  syncFailed(error: string, notFound: boolean): void;
}

/**
 * Runs a fetch activity: its result, or null when it failed in a way retrying cannot fix. Then the run
 * records why (and whether the service does not know the id) and is flagged; anything else is thrown.
 */
export async function fetchOrFlag<Result>(
  run: FailedFetchRecorder,
  fetch: () => Promise<Result>,
): Promise<Result | null> {
  try {
    return await fetch();
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    run.syncFailed(
      error.cause?.message ?? error.message,
      error.cause instanceof ApplicationFailure && error.cause.type === 'ServiceNotFoundError',
    );
    upsertSearchAttributes(attention(run.view.lastError));
    return null;
  }
}
