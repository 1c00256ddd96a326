import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/** What a failed command shows in a workflow's view: the message, the error type and the service's code. */
export interface CommandFailure {
  error: string;
  /** The activity's error type (ServiceConflictError, ServiceValidationError...), when known. */
  errorType: string | null;
  /** The service's error code (REFERENCE_CONFLICT, SERVICE_BANKING_NOT_ACTIVE...), when it gave one. */
  errorCode: string | null;
  /** The service's HTTP status, when it answered. */
  httpStatus: number | null;
}

/**
 * Turns an activity failure (a 4xx retrying cannot fix, made non-retryable by src/flows/in-activity/failures.ts) into
 * what the view shows. Anything else is rethrown: a bug should fail the workflow task, not be swallowed.
 */
export function commandFailure(error: unknown): CommandFailure {
  if (!(error instanceof ActivityFailure)) throw error;
  const cause = error.cause;
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as { status?: unknown; code?: unknown };
    return {
      error: cause.message,
      errorType: cause.type ?? null,
      errorCode: typeof details.code === 'string' ? details.code : null,
      httpStatus: typeof details.status === 'number' ? details.status : null,
    };
  }
  return {
    error: cause?.message ?? error.message,
    errorType: cause?.name ?? null,
    errorCode: null,
    httpStatus: null,
  };
}

/** A LastError search attribute value: short, one line. */
export function lastErrorValue(failure: CommandFailure): string {
  const prefix = failure.errorCode ?? failure.errorType ?? 'error';
  return `${prefix}: ${failure.error}`.replace(/\s+/g, ' ').slice(0, 200);
}
