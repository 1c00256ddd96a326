import type { ActivityDependencies } from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import type { ReconciliationActivities } from './activities-contract.js';
import { ReconcilePage } from './page.js';

// Reconciliation's activity: a page of a scope at a time (reconcile-page.ts).

export function createReconciliationActivities(deps: ActivityDependencies): ReconciliationActivities {
  return {
    /** One page of the scope, its drift repaired and reported (ReconcilePage). */
    reconcilePage: (input) => translatingFailures(() => new ReconcilePage(deps, input).run()),
  };
}
