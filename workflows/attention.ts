import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { LastError, NeedsAttention } from '../src/workflow-safe/search-attributes.js';

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
