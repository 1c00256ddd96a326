import type { RetryPolicy } from '@temporalio/common';

// Failures that retrying cannot fix. Activities throw these as non-retryable ApplicationFailures
// (see activities/failures.ts); listing them here as well keeps the policy explicit in the workflows.
export const nonRetryableActivityErrors = [
  'ServiceValidationError', // 400: the request itself is wrong
  'ServiceAuthError', // 401/403: a key or permission problem a person must fix
  'ServiceNotFoundError', // 404
  'ServiceConflictError', // 409 REFERENCE_CONFLICT and the like
  'ServicePayloadTooLargeError', // 413
  'ServiceSchemaError', // the service answered something booksync does not understand
  'LedgerConflictError', // same ledger key, different contents: a bug or tampering, never retried
  'LedgerEntryNotFoundError',
  'LedgerValidationError',
  'UnmappableStateError', // a state the mapping does not know: a person looks before anything is booked
];

/** Calls to the service and the ledger: quick first retry, capped backoff, unlimited attempts for transient faults. */
export const serviceCallRetry: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '1m',
  nonRetryableErrorTypes: nonRetryableActivityErrors,
};
