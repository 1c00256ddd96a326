import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { LastError, NeedsAttention } from '../src/temporal/search-attributes.js';

/** The search attributes that flag a run for a person: NeedsAttention, and LastError cut to 200 characters. */
export function needsAttention(lastError: string): SearchAttributeUpdatePair[] {
  return [
    { key: NeedsAttention, value: true },
    { key: LastError, value: lastError.slice(0, 200) },
  ];
}

/**
 * Shows `next` as the run's last error: flags the run (NeedsAttention, LastError) while there is one and
 * clears NeedsAttention once it is gone. Upserts only when it changed; returns the error now shown.
 */
export function showLastError(shown: string | null, next: string | null): string | null {
  if (next === shown) return shown;
  upsertSearchAttributes(next === null ? [{ key: NeedsAttention, value: false }] : needsAttention(next));
  return next;
}
