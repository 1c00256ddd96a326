import { z } from 'zod';
import { TargetRefusedError, TargetUnavailableError } from '../errors.js';

// QBO answers errors with a Fault (IntuitRestServiceDef.xsd): `{"Fault": {"type": "ValidationFault",
// "Error": [{"Message", "Detail", "code"}]}}`. Throttling (429, ThrottleExceeded), outages (5xx, SystemFault)
// are retried; validation and authorization refusals are not, and keep QBO's own words for FAILED entries.

/** One Error of a Fault, as QBO gave it. */
const faultItem = z.object({
  Message: z.string().optional(),
  Detail: z.string().optional(),
  code: z.string().optional(),
});
export type QboFaultItem = z.infer<typeof faultItem>;

const faultBody = z.object({
  Fault: z.object({ type: z.string().optional(), Error: z.array(faultItem).optional() }),
});

/** Default wait after a 429 without Retry-After: QBO's limits are per minute. */
const THROTTLE_DELAY_MS = 60_000;

/** QBO's refusal of a request, with its Fault's Errors kept apart so a refusal is classified by them. */
export class QuickBooksRefusal extends TargetRefusedError {
  readonly faults: readonly QboFaultItem[];
  constructor(targetMessage: string, faults: readonly QboFaultItem[]) {
    super('quickbooks', targetMessage);
    this.faults = faults;
  }
}

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
  return new QuickBooksRefusal(type ? `${type}: ${message}` : message, errors);
}

/**
 * What a refusal means to the adapter. QBO's codes are not one-to-one with what happened: Intuit's error list
 * gives 6200 "Account Period Closed" (6210 with a closing password,
 * https://developer.intuit.com/app/developer/qbo/docs/develop/troubleshooting/error-codes), but QBO has also
 * answered a create into closed books with code 5010 and the message "Account Period Closed"
 * (routablehq/python-quickbooks#208), and 5010 is the Stale Object Error's code. So each Error is read by its
 * Message first, and by its code only when the Message names none of these.
 */
export type FaultKind = 'closed-period' | 'stale-object' | 'deposited' | 'applied';

const byMessage: [RegExp, FaultKind][] = [
  [/Account Period Closed/i, 'closed-period'],
  [/Stale Object/i, 'stale-object'],
  [/Deposited Transaction cannot be (changed|voided)|transaction has been deposited/i, 'deposited'],
  // An invoice a payment is applied to: QBO answers its void with the generic 6000, so only its words say so.
  [/payments? (is |are )?applied/i, 'applied'],
];

const byCode: Record<string, FaultKind> = {
  '6200': 'closed-period',
  '6210': 'closed-period',
  '5010': 'stale-object',
  '6540': 'deposited',
};

/** The kind of QBO's refusal (its first Error that has one), null for any other error. */
export function faultKind(error: unknown): FaultKind | null {
  if (!(error instanceof QuickBooksRefusal)) return null;
  const named = (text: string | undefined) =>
    text ? byMessage.find(([pattern]) => pattern.test(text))?.[1] : undefined;
  for (const fault of error.faults) {
    const kind = named(fault.Message) ?? named(fault.Detail) ?? byCode[fault.code ?? ''];
    if (kind) return kind;
  }
  return null;
}

/** A stale SyncToken: the record changed since it was read; re-read and try again. */
export function isStaleObject(error: unknown): boolean {
  return faultKind(error) === 'stale-object';
}

/** QBO's refusal of a write dated on or before the books closing date (6200 / 6210, or 5010 so worded). */
export function isClosedPeriod(error: unknown): boolean {
  return faultKind(error) === 'closed-period';
}

/**
 * QBO's refusal to void or change a payment a deposit holds: 6540 "Deposited Transaction cannot be changed"
 * (Intuit's Payment reference: "If funds for the payment have been deposited, you must delete the associated
 * deposit object before voiding the payment object").
 */
export function isDepositedRefusal(error: unknown): boolean {
  return faultKind(error) === 'deposited';
}

/**
 * QBO's refusal to void a document in place because money has moved on it since: a payment or sales receipt
 * a deposit holds (6540), an invoice a payment is applied to ("payments applied", under the generic 6000). The
 * reversal is then the document booksync makes after a close, dated the reversal's date.
 */
export function isRefusedInPlace(error: unknown): boolean {
  const kind = faultKind(error);
  return kind === 'deposited' || kind === 'applied';
}
