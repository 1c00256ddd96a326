import type { ActivityDependencies } from './context.js';
import { translatingFailures } from './failures.js';
import { ReconcilePage } from './reconcile-page.js';
import type { ReconciliationActivities } from './reconciliation-contract.js';

// Reconciliation's activity: a page of a scope at a time (reconcile-page.ts).

export function createReconciliationActivities(deps: ActivityDependencies): ReconciliationActivities {
  return {
    /** One page of the scope, its drift repaired and reported (ReconcilePage). */
    reconcilePage: (input) => translatingFailures(() => new ReconcilePage(deps, input).run()),
  };
}
