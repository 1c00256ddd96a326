// Target errors carry a stable `name`, so the push activity's retry policy can list the non-retryable ones.

/** Missing accounts or a bad connection at start-up: one line per problem, so the operator can fix them all. */
export class TargetConfigurationError extends Error {
  override readonly name = 'TargetConfigurationError';
  constructor(
    readonly target: string,
    readonly problems: readonly string[],
  ) {
    super(`accounting target ${target} is not usable:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** The target refused the document (validation, closed period, missing account...); retrying cannot fix it. */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
  constructor(
    readonly target: string,
    /** The target's own message, shown in FAILED entries. */
    readonly targetMessage: string,
    options?: { cause?: unknown },
  ) {
    super(`${target} refused: ${targetMessage}`, options);
  }
}

/**
 * The target no longer accepts booksync at all (a revoked or expired OAuth connection): no entry can go
 * until the operator reconnects, so the push stops and flags this one reason instead of failing every entry.
 */
export class TargetDisconnectedError extends Error {
  override readonly name = 'TargetDisconnectedError';
  constructor(
    readonly target: string,
    /** What happened and the command that fixes it. */
    readonly targetMessage: string,
  ) {
    super(`${target} disconnected: ${targetMessage}`);
  }
}

/** The target already holds this key with other contents. */
export class TargetConflictError extends Error {
  override readonly name = 'TargetConflictError';
  constructor(
    readonly target: string,
    readonly key: string,
    readonly remoteHash: string,
    readonly attemptedHash: string,
  ) {
    super(`${target} already holds ${key} with different contents`);
  }
}

/** Outage, timeout, rate limit: retried (after retryAfterMs when the target said so). */
export class TargetUnavailableError extends Error {
  override readonly name = 'TargetUnavailableError';
  constructor(
    readonly target: string,
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(`${target} unavailable: ${message}`, options);
  }
}

export const nonRetryableTargetErrors = [
  'TargetConfigurationError',
  'TargetRefusedError',
  'TargetConflictError',
] as const;

/** A refusal of one document (the target's answer to it), as opposed to an outage or a lost connection. */
export function isTargetRefusal(error: unknown): error is Error {
  return error instanceof Error && (nonRetryableTargetErrors as readonly string[]).includes(error.name);
}
