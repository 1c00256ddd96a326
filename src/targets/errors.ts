// Target errors carry a stable `name`, so the push activity's retry policy can list the non-retryable ones.

/** Missing accounts or a bad connection at start-up: one line per problem, so the operator can fix them all. */
export class TargetConfigurationError extends Error {
  override readonly name = 'TargetConfigurationError';
  readonly target: string;
  readonly problems: readonly string[];
  constructor(target: string, problems: readonly string[]) {
    super(`accounting target ${target} is not usable:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.target = target;
    this.problems = problems;
  }
}

/** The target refused the document (validation, closed period, missing account...); retrying cannot fix it. */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
  readonly target: string;
  /** The target's own message, shown in FAILED entries. */
  readonly targetMessage: string;
  constructor(target: string, targetMessage: string, options?: { cause?: unknown }) {
    super(`${target} refused: ${targetMessage}`, options);
    this.target = target;
    this.targetMessage = targetMessage;
  }
}

/**
 * The target no longer accepts booksync at all (a revoked or expired OAuth connection): no entry can go
 * until the operator reconnects, so the push stops and flags this one reason instead of failing every entry.
 */
export class TargetDisconnectedError extends Error {
  override readonly name = 'TargetDisconnectedError';
  readonly target: string;
  /** What happened and the command that fixes it. */
  readonly targetMessage: string;
  constructor(target: string, targetMessage: string) {
    super(`${target} disconnected: ${targetMessage}`);
    this.target = target;
    this.targetMessage = targetMessage;
  }
}

/** The target already holds this key with other contents. */
export class TargetConflictError extends Error {
  override readonly name = 'TargetConflictError';
  readonly target: string;
  readonly key: string;
  readonly remoteHash: string;
  readonly attemptedHash: string;
  constructor(target: string, key: string, remoteHash: string, attemptedHash: string) {
    super(`${target} already holds ${key} with different contents`);
    this.target = target;
    this.key = key;
    this.remoteHash = remoteHash;
    this.attemptedHash = attemptedHash;
  }
}

/** Outage, timeout, rate limit: retried (after retryAfterMs when the target said so). */
export class TargetUnavailableError extends Error {
  override readonly name = 'TargetUnavailableError';
  readonly target: string;
  readonly retryAfterMs?: number;
  constructor(target: string, message: string, retryAfterMs?: number, options?: { cause?: unknown }) {
    super(`${target} unavailable: ${message}`, options);
    this.target = target;
    this.retryAfterMs = retryAfterMs;
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
