import { resyncDiff } from '../../resync/plan.js';
import {
  type ActivityDependencies,
  accountingDate,
  activityLogger,
  linkBookingOptions,
  payoutBookingOptions,
} from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import { fetchServiceState } from '../period-close/activities.js';
import type { ResyncActivities, ResyncInput, ResyncResult } from './activities-contract.js';

export function createResyncActivities(deps: ActivityDependencies): ResyncActivities {
  return {
    async resyncBooks(input: ResyncInput): Promise<ResyncResult> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { since: input.since ?? null, apply: input.apply });
        const state = await fetchServiceState(deps);
        const diff = resyncDiff(state, {
          since: input.since ?? null,
          ...linkBookingOptions(deps),
          ...payoutBookingOptions(deps),
        });
        const result: ResyncResult = { applied: input.apply, diff, reversed: [], posted: [] };
        if (input.apply) {
          // Reversals first, then the new versions: the ledger's own rules (one reversal per entry, versions
          // `{key}#n`), each write idempotent, so a retried attempt converges on the same books.
          const date = accountingDate(deps);
          for (const { key, reason } of diff.toReverse) {
            const { created } = await deps.ledger.reverse(key, { reason, date });
            if (created) result.reversed.push(key);
          }
          for (const entry of diff.toPost) {
            const { created } = await deps.ledger.post(entry);
            if (created) result.posted.push(entry.key);
          }
        }
        log.info(
          {
            toReverse: diff.toReverse.length,
            toPost: diff.toPost.length,
            unchanged: diff.unchanged,
            reversed: result.reversed.length,
            posted: result.posted.length,
          },
          input.apply ? 'resync applied' : 'resync dry run',
        );
        return result;
      });
    },
  };
}
