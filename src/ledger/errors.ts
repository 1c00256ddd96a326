// Ledger errors carry a stable `name`, so Temporal activity retry policies can list the non-retryable ones
// by type (ApplicationFailure uses the error's name as its type).

/** Same key, different contents: a bug or drift to look at, never something a retry fixes. */
export class LedgerConflictError extends Error {
  override readonly name = 'LedgerConflictError';
  readonly key: string;
  readonly existingHash: string;
  readonly attemptedHash: string;
  constructor(key: string, existingHash: string, attemptedHash: string) {
    super(`ledger entry ${key} already exists with different contents`);
    this.key = key;
    this.existingHash = existingHash;
    this.attemptedHash = attemptedHash;
  }
}

/** Reversal (or lookup that requires it) of a key that was never posted. */
export class LedgerEntryNotFoundError extends Error {
  override readonly name = 'LedgerEntryNotFoundError';
  readonly key: string;
  constructor(key: string) {
    super(`ledger entry ${key} was never posted`);
    this.key = key;
  }
}

/** An entry that is not acceptable double-entry: unbalanced, unknown account, unsafe amount, bad key... */
export class LedgerValidationError extends Error {
  override readonly name = 'LedgerValidationError';
}

/** The database stayed locked by another writer through every retry; retrying later may succeed. */
export class LedgerBusyError extends Error {
  override readonly name = 'LedgerBusyError';
  readonly attempts: number;
  constructor(attempts: number, options?: { cause?: unknown }) {
    super(`ledger database busy after ${attempts} attempts`, options);
    this.attempts = attempts;
  }
}

/** A fetched service object in a state the mapping does not know how to book (e.g. an unknown status). */
export class UnmappableStateError extends Error {
  override readonly name = 'UnmappableStateError';
}

/** The books already open on another day: a backfill cannot move the day the books start. */
export class BooksAlreadyOpenError extends Error {
  override readonly name = 'BooksAlreadyOpenError';
  readonly opensOn: string;
  readonly attempted: string;
  constructor(opensOn: string, attempted: string) {
    super(`the books already open on ${opensOn}; a backfill since ${attempted} would move their start`);
    this.opensOn = opensOn;
    this.attempted = attempted;
  }
}

/** A closing of the books that would reopen a closed period (an earlier day than the last closing). */
export class BooksClosedError extends Error {
  override readonly name = 'BooksClosedError';
  readonly closedThrough: string;
  readonly attempted: string;
  constructor(closedThrough: string, attempted: string) {
    super(
      `the books are closed through ${closedThrough}; closing through ${attempted} would reopen a closed period (a closed period never changes)`,
    );
    this.closedThrough = closedThrough;
    this.attempted = attempted;
  }
}

/** Error names an activity retry policy treats as non-retryable (listed where workflow code can import them). */
export { nonRetryableLedgerErrors } from '../workflow-safe/failure-names.js';
