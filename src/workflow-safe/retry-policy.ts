import type { RetryPolicy } from '@temporalio/common';
import { nonRetryableLedgerErrors, nonRetryableServiceErrors } from './failure-names.js';

// Failures that retrying cannot fix, as their owners list them. Activities throw these as non-retryable
// ApplicationFailures (see src/flows/in-activity/failures.ts); listing them here as well keeps the policy explicit in the
// workflows.
export const nonRetryableActivityErrors = [...nonRetryableServiceErrors, ...nonRetryableLedgerErrors];

/** Calls to the service and the ledger: quick first retry, capped backoff, unlimited attempts for transient faults. */
export const serviceCallRetry: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '1m',
  nonRetryableErrorTypes: nonRetryableActivityErrors,
};
