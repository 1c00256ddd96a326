import { TargetDisconnectedError, TargetRefusedError, TargetUnavailableError } from '../errors.js';
import { reconnectCommand } from '../oauth/token-store.js';

// xero-node rejects a failed call with a JSON string: `{response: {statusCode, body, headers}, body}` (status 0
// and the message as body when no answer came). Xero answers refusals with its Error shape
// (`{ErrorNumber, Type: "ValidationException", Message, Elements: [{ValidationErrors: [{Message}]}]}`),
// throttling with 429 + X-Rate-Limit-Problem (minute | day | concurrent; Retry-After for the minute and the
// day, developer.xero.com/documentation/guides/oauth2/limits), a removed
// connection with 403. Refusals keep Xero's own words for FAILED entries; outages and throttles are retried.

export interface XeroFailure {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** The failure inside a rejection of xero-node, or null when it is something else (a bug). */
export function failureOf(rejection: unknown): XeroFailure | null {
  let parsed: unknown = rejection;
  if (typeof rejection === 'string') {
    try {
      parsed = JSON.parse(rejection);
    } catch {
      return { status: 0, body: rejection, headers: {} };
    }
  }
  const response = (parsed as { response?: Record<string, unknown> } | null)?.response;
  if (!response || typeof response !== 'object') return null;
  const status = Number(response.statusCode ?? response.status ?? 0);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((response.headers ?? {}) as Record<string, unknown>))
    headers[name.toLowerCase()] = String(value);
  return { status, body: response.body ?? response.data ?? (parsed as { body?: unknown }).body, headers };
}

/** Xero's messages in an Error body, or in the ValidationErrors of the records of a batch answer. */
export function xeroMessages(body: unknown): string[] {
  if (typeof body === 'string') return body ? [body] : [];
  if (body === null || typeof body !== 'object') return [];
  const b = body as Record<string, unknown>;
  const messages: string[] = [];
  for (const element of (b.Elements ?? b.elements ?? []) as Record<string, unknown>[]) {
    for (const v of (element.ValidationErrors ?? element.validationErrors ?? []) as {
      Message?: string;
      message?: string;
    }[])
      messages.push(String(v.Message ?? v.message ?? ''));
  }
  if (messages.length === 0 && (b.Message ?? b.message)) messages.push(String(b.Message ?? b.message));
  return [...new Set(messages.filter(Boolean))];
}

/** Default wait after a 429 without Retry-After: Xero's limits are per minute. */
const THROTTLE_DELAY_MS = 60_000;
/** A 429 for the concurrent limit comes without Retry-After: a call in flight ends within seconds. */
const CONCURRENT_DELAY_MS = 1_000;

/**
 * A 401 for a token without the scope the call needs: Xero says AuthorizationUnsuccessful (an expired or
 * revoked token is AuthenticationUnsuccessful), as it answered GET /Accounts to a token without
 * accounting.settings (https://stackoverflow.com/questions/61047303, a Xero engineer answering). A refresh
 * gives the same scopes: only a new consent with the scope helps.
 */
export function lacksScope(failure: XeroFailure): boolean {
  const body = failure.body as { Detail?: unknown; detail?: unknown } | null;
  return (
    failure.status === 401 && /AuthorizationUnsuccessful/.test(String(body?.Detail ?? body?.detail ?? ''))
  );
}

export function xeroError(failure: XeroFailure, what: string): Error {
  const messages = xeroMessages(failure.body);
  const text = messages.join('; ') || `HTTP ${failure.status}`;
  const { status } = failure;
  if (status === 429) {
    const seconds = Number(failure.headers['retry-after']);
    const problem = failure.headers['x-rate-limit-problem'];
    return new TargetUnavailableError(
      'xero',
      `throttled${problem ? ` (${problem} limit)` : ''} on ${what}`,
      Number.isFinite(seconds)
        ? seconds * 1000
        : /concurrent/i.test(problem ?? '')
          ? CONCURRENT_DELAY_MS
          : THROTTLE_DELAY_MS,
    );
  }
  if (lacksScope(failure)) {
    return new TargetDisconnectedError(
      'xero',
      `Xero refused ${what}: the connection was not granted the scope it needs (HTTP 401 AuthorizationUnsuccessful; booksync asks the scopes of XERO_SCOPES, or Xero's broad ones with XERO_BROAD_SCOPES): ${reconnectCommand('xero')}`,
    );
  }
  if (status === 401 || status === 403) {
    return new TargetDisconnectedError(
      'xero',
      `Xero refused booksync's access to the organisation (HTTP ${status}: ${text}): ${reconnectCommand('xero')}`,
    );
  }
  if (status === 0 || status >= 500) return new TargetUnavailableError('xero', `${what}: ${text}`);
  const type = (failure.body as { Type?: string } | null)?.Type;
  return new TargetRefusedError('xero', type ? `${type}: ${text}` : text);
}

/**
 * Xero's refusal to cancel a document because money moved on it, read by its words (Xero answers every
 * validation refusal with ErrorNumber 10): an invoice with a payment or credit note applied ("This document
 * cannot be edited as it has a payment or credit note allocated to it", XeroAPI/xero-node#407), a payment
 * bank reconciliation matched (Xero's Payments page, "Deleting payments"; its wording not published).
 */
export function isRefusedInPlace(error: unknown): boolean {
  if (!(error instanceof TargetRefusedError)) return false;
  return /payment or credit note allocated|has been reconciled|is reconciled/i.test(error.targetMessage);
}
