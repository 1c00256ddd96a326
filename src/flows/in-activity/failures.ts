import { ServiceError } from '@booksync/service-contract/errors';
import { ApplicationFailure } from '@temporalio/common';
import { nonRetryableLedgerErrors } from '../../ledger/errors.js';

/**
 * Turns what an activity caught into what Temporal should do with it: failures a retry cannot fix (a 4xx,
 * a non-idempotent write whose outcome is unknown, a ledger conflict) become non-retryable with the
 * error's class name as type; everything else is rethrown for the activity retry policy.
 */
export function asActivityFailure(error: unknown): unknown {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof ServiceError) {
    const details = { status: error.status, code: error.code ?? null };
    return error.retryable
      ? ApplicationFailure.retryable(error.message, error.name, details)
      : ApplicationFailure.nonRetryable(error.message, error.name, details);
  }
  if (error instanceof Error && (nonRetryableLedgerErrors as readonly string[]).includes(error.name)) {
    return ApplicationFailure.nonRetryable(error.message, error.name);
  }
  return error;
}

/** Runs an activity body, translating its failure (see asActivityFailure). */
export async function translatingFailures<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw asActivityFailure(error);
  }
}
