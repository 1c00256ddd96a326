// The names of the failures no retry can pass, as workflow code needs them for its retry policies. This
// module imports nothing, so the workflow bundle carries no zod and no service schema (it did once, and each
// workflow context then held the schemas: the bounded worker ran out of heap). The ledger's error classes
// (src/ledger/errors.ts) import these lists; the service contract's classes (@booksync/service-contract,
// errors.ts) say whether a retry can pass by their `retryable` flag.
// test/workflow-safe/failure-names.test.ts checks every name is a class its owner exports, and that the
// service's list is exactly its classes a retry cannot pass.

/** Service errors no retry can pass: the request itself is refused, or the answer cannot be read. */
export const nonRetryableServiceErrors = [
  'ServiceValidationError', // 400: the request itself is wrong
  'ServiceAuthError', // 401/403: a key or permission problem a person must fix
  'ServiceNotFoundError', // 404
  'ServiceConflictError', // 409 REFERENCE_CONFLICT and the like
  'ServicePayloadTooLargeError', // 413
  'ServiceSchemaError', // the service answered something booksync does not understand
] as const;

/** Ledger errors no retry can pass: a conflict, a missing original, an invalid or unmappable entry. */
export const nonRetryableLedgerErrors = [
  'BooksAlreadyOpenError',
  'LedgerConflictError',
  'LedgerEntryNotFoundError',
  'LedgerValidationError',
  'UnmappableStateError',
] as const;
