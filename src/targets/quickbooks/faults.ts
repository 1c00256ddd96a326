import { z } from 'zod';
import { TargetRefusedError, TargetUnavailableError } from '../errors.js';

// QBO answers errors with a Fault (IntuitRestServiceDef.xsd): `{"Fault": {"type": "ValidationFault",
// "Error": [{"Message", "Detail", "code"}]}}`. Throttling (429, ThrottleExceeded), outages (5xx, SystemFault)
// are retried; validation and authorization refusals are not, and keep QBO's own words for FAILED entries.

const faultBody = z.object({
  Fault: z.object({
    type: z.string().optional(),
    Error: z
      .array(
        z.object({
          Message: z.string().optional(),
          Detail: z.string().optional(),
          code: z.string().optional(),
        }),
      )
      .optional(),
  }),
});

/** Default wait after a 429 without Retry-After: QBO's limits are per minute. */
const THROTTLE_DELAY_MS = 60_000;

export function faultError(status: number, body: string, retryAfter: string | null): Error {
  let parsed: z.infer<typeof faultBody> | null = null;
  try {
    const result = faultBody.safeParse(JSON.parse(body));
    if (result.success) parsed = result.data;
  } catch {
    // Not JSON (a proxy's HTML page): the status decides.
  }
  const type = parsed?.Fault.type ?? '';
  const errors = parsed?.Fault.Error ?? [];
  const message =
    errors
      .map((e) => [e.Message, e.Detail].filter(Boolean).join(': ') + (e.code ? ` (code ${e.code})` : ''))
      .join('; ') || `HTTP ${status}`;
  if (status === 429 || type === 'ThrottleExceeded' || /ThrottleExceeded/.test(message)) {
    const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
    return new TargetUnavailableError(
      'quickbooks',
      `throttled: ${message}`,
      Number.isFinite(seconds) ? seconds * 1000 : THROTTLE_DELAY_MS,
    );
  }
  if (status >= 500 || type === 'SystemFault') return new TargetUnavailableError('quickbooks', message);
  return new TargetRefusedError('quickbooks', type ? `${type}: ${message}` : message);
}

/** A stale SyncToken: the record changed since it was read; re-read and try again. */
export function isStaleObject(error: unknown): boolean {
  return error instanceof TargetRefusedError && /code 5010\b|Stale Object/.test(error.targetMessage);
}

/**
 * QBO's refusal of a write dated on or before the books closing date: 6200 "Account Period Closed" (6210 when
 * the closing date has a password), Intuit's error codes
 * (https://developer.intuit.com/app/developer/qbo/docs/develop/troubleshooting/error-codes).
 */
export function isClosedPeriod(error: unknown): boolean {
  return (
    error instanceof TargetRefusedError && /code 62[01]0\b|Account Period Closed/i.test(error.targetMessage)
  );
}

/**
 * QBO's refusal to void or change a payment a deposit holds: 6540 "Deposited Transaction cannot be changed"
 * (Intuit's Payment reference: "If funds for the payment have been deposited, you must delete the associated
 * deposit object before voiding the payment object").
 */
export function isDepositedRefusal(error: unknown): boolean {
  return (
    error instanceof TargetRefusedError &&
    /code 6540\b|Deposited Transaction cannot be changed/i.test(error.targetMessage)
  );
}
