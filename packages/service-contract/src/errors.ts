import { ErrorBody } from './schemas/error-body.js';

// One hierarchy for every way a call to the service can fail (spec part 7). Callers switch on the class or
// on `retryable`, never on message text. Each class has a stable `name`: Temporal activities use it as the
// ApplicationFailure type, and a worker lists the always-final ones in its retry policies.

/** Codes of part 7. Any other code from the service is kept as is on `code`. */
export const ServiceErrorCode = {
  ReferenceConflict: 'REFERENCE_CONFLICT',
  SharedAccount: 'SHARED_ACCOUNT',
  ServiceBankingNotActive: 'SERVICE_BANKING_NOT_ACTIVE',
  MissingPermission: 'MISSING_PERMISSION',
} as const;
export type KnownServiceErrorCode = (typeof ServiceErrorCode)[keyof typeof ServiceErrorCode];

export interface ServiceErrorOptions {
  /** HTTP status; undefined when no response arrived. */
  status?: number;
  code?: string;
  /** The raw body when it was not the JSON error shape (some 500s answer plain text). */
  bodyText?: string;
  /**
   * Whether sending the same request again is safe. Defaults to true. The client passes false for writes that
   * are not idempotent (a refund), so a transient failure there is not retryable: it may have taken effect.
   */
  retrySafe?: boolean;
  cause?: unknown;
}

export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly status: number | undefined;
  readonly code: KnownServiceErrorCode | (string & {}) | undefined;
  readonly bodyText: string | undefined;
  /** The failure itself may pass (a 503, a timeout), regardless of whether resending is safe. */
  readonly transient: boolean;
  /** Sending the same request again may succeed and cannot do harm. */
  readonly retryable: boolean;

  constructor(message: string, options: ServiceErrorOptions = {}, transient = false) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.bodyText = options.bodyText;
    this.transient = transient;
    this.retryable = transient && options.retrySafe !== false;
  }
}

/** 400: invalid input or a rule of the endpoint refused it. Resending the same body fails the same way. */
export class ServiceValidationError extends ServiceError {
  override name = 'ServiceValidationError';
}

/** 401 or 403: no REST access, SERVICE_BANKING_NOT_ACTIVE, or MISSING_PERMISSION (part 5). */
export class ServiceAuthError extends ServiceError {
  override name = 'ServiceAuthError';

  /** The permission a MISSING_PERMISSION message names (decision “Team members and permissions”: "missing permission BANKING_MANAGE"). */
  get missingPermission(): string | undefined {
    if (this.code !== ServiceErrorCode.MissingPermission) return undefined;
    return /\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/.exec(this.message)?.[1];
  }
}

/** 404: missing, or another organization's (decision “Error bodies”). */
export class ServiceNotFoundError extends ServiceError {
  override name = 'ServiceNotFoundError';
}

/** 409: REFERENCE_CONFLICT or SHARED_ACCOUNT. */
export class ServiceConflictError extends ServiceError {
  override name = 'ServiceConflictError';
}

/** 413: an upload over the size limit (decision “Files”). */
export class ServicePayloadTooLargeError extends ServiceError {
  override name = 'ServicePayloadTooLargeError';
}

/**
 * 429: slow down; retryAfterMs from the Retry-After header when given. The request was refused before it was
 * processed, so resending is safe even for a write that is not idempotent.
 */
export class ServiceRateLimitedError extends ServiceError {
  override name = 'ServiceRateLimitedError';
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: ServiceErrorOptions & { retryAfterMs?: number } = {}) {
    super(message, { ...options, retrySafe: true }, true);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** 5xx. */
export class ServiceServerError extends ServiceError {
  override name = 'ServiceServerError';

  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, options, true);
  }
}

/** No response: connection refused or reset, DNS failure. */
export class ServiceNetworkError extends ServiceError {
  override name = 'ServiceNetworkError';

  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, options, true);
  }
}

/** The per-request timeout elapsed before a response. */
export class ServiceTimeoutError extends ServiceNetworkError {
  override name = 'ServiceTimeoutError';
}

/**
 * A response that does not match the schema of its operation: the contract and the service disagree, which
 * retrying cannot fix. `issues` names the paths that failed, never the values.
 */
export class ServiceSchemaError extends ServiceError {
  override name = 'ServiceSchemaError';
  readonly issues: readonly string[];

  constructor(message: string, issues: readonly string[], options: ServiceErrorOptions = {}) {
    super(message, options, false);
    this.issues = issues;
  }
}

/** What activity retry policies list as non-retryable (src/workflow-safe/retry-policy.ts). */

const MAX_MESSAGE_CHARS = 500;

export interface ResponseErrorContext {
  /** The Retry-After header, seconds or an HTTP date. */
  retryAfter?: string | null;
  retrySafe?: boolean;
  /** Clock for an HTTP-date Retry-After. */
  now?: number;
}

/** Builds the error for a non-2xx response from its status and body text (JSON {error, code?} or plain text). */
export function fromResponse(
  status: number,
  bodyText: string,
  context: ResponseErrorContext = {},
): ServiceError {
  const body = parseErrorBody(bodyText);
  const message = body?.error ?? (bodyText.trim().slice(0, MAX_MESSAGE_CHARS) || `HTTP ${status}`);
  const options: ServiceErrorOptions = {
    status,
    ...(body?.code === undefined ? {} : { code: body.code }),
    ...(body === undefined && bodyText !== '' ? { bodyText } : {}),
    ...(context.retrySafe === undefined ? {} : { retrySafe: context.retrySafe }),
  };
  if (status === 400) return new ServiceValidationError(message, options);
  if (status === 401 || status === 403) return new ServiceAuthError(message, options);
  if (status === 404) return new ServiceNotFoundError(message, options);
  if (status === 409) return new ServiceConflictError(message, options);
  if (status === 413) return new ServicePayloadTooLargeError(message, options);
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(context.retryAfter, context.now ?? Date.now());
    return new ServiceRateLimitedError(message, {
      ...options,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status >= 500) return new ServiceServerError(message, options);
  return new ServiceError(message, options);
}

function parseErrorBody(bodyText: string): ErrorBody | undefined {
  if (!bodyText.trimStart().startsWith('{')) return undefined;
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(bodyText));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value == null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
