import {
  ApplicationFailure,
  log,
  proxyActivities,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import { SyncState } from '../../workflow-safe/search-attributes.js';
import type { ResyncActivities, ResyncInput, ResyncResult } from './activities-contract.js';

/**
 * Re-sync with a diff: one activity re-fetches the service's objects, maps them with the current code and
 * settings and diffs them with the books; with `apply` it writes exactly that diff as reversals and new
 * versions. The result (the diff, and what was written) stays in Temporal.
 */
export async function resync(input: ResyncInput): Promise<ResyncResult> {
  if (input.since != null && !/^\d{4}-\d{2}-\d{2}$/.test(input.since)) {
    throw ApplicationFailure.nonRetryable(`bad since ${JSON.stringify(input.since)}`, 'BadPeriod');
  }
  upsertSearchAttributes([{ key: SyncState, value: input.apply ? 'RESYNCING' : 'DIFFING' }]);
  const { resyncBooks } = proxyActivities<ResyncActivities>({
    startToCloseTimeout: '30m',
    retry: { ...serviceCallRetry, maximumAttempts: 5 },
  });
  const result = await resyncBooks({ since: input.since ?? null, apply: input.apply });
  upsertMemo({
    resync: {
      applied: result.applied,
      toReverse: result.diff.toReverse.length,
      toPost: result.diff.toPost.length,
    },
  });
  upsertSearchAttributes([{ key: SyncState, value: 'DONE' }]);
  log.info('resync done', {
    applied: result.applied,
    reversed: result.reversed.length,
    posted: result.posted.length,
  });
  return result;
}
