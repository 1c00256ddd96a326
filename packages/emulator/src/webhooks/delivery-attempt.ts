import type { EventEnvelope } from '@booksync/service-contract/schemas/index';
import { SIGNATURE_HEADER, sign } from '@booksync/service-contract/webhook-signature';
import type { Store } from '../store/store.js';
import type { DeliveryTarget } from './dispatcher.js';

// The two pieces every dispatcher shares (this in-process one, and a Temporal-workflow one): building the
// signed request of one attempt, and recording what the attempt did.

export interface SignedDelivery {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** 6.4: a fresh t and signature per attempt; unsigned when the subscription has no secret (6.1 rule 3). */
export function buildSignedDelivery(
  event: EventEnvelope,
  target: DeliveryTarget,
  nowMs: number,
): SignedDelivery {
  const body = JSON.stringify(event);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.secret !== null) headers[SIGNATURE_HEADER] = sign(target.secret, body, Math.floor(nowMs / 1000));
  return { url: target.url, body, headers };
}

export interface DeliveryAttempt {
  eventId: string;
  subscriptionId: string;
  /** 1-based. */
  attempt: number;
  attemptedAt: Date;
  /** The HTTP status, or null when no response arrived. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export function recordDeliveryAttempt(store: Store, attempt: DeliveryAttempt): void {
  store.db
    .prepare(
      `INSERT INTO delivery_attempts (event_id, subscription_id, attempt, attempted_at, status_code, error, duration_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      attempt.eventId,
      attempt.subscriptionId,
      attempt.attempt,
      attempt.attemptedAt.toISOString(),
      attempt.statusCode,
      attempt.error,
      attempt.durationMs,
    );
}

/** The number the next attempt of this event to this subscription gets (redeliveries continue the count). */
export function nextAttemptNumber(store: Store, eventId: string, subscriptionId: string): number {
  const row = store.db
    .prepare(
      'SELECT COALESCE(MAX(attempt), 0) AS n FROM delivery_attempts WHERE event_id = ? AND subscription_id = ?',
    )
    .get(eventId, subscriptionId) as { n: number };
  return row.n + 1;
}

/**
 * One HTTP attempt with a timeout; never throws. 6.3 rule 1: only a 2xx acknowledges, so a redirect is not
 * followed (E18): a 3xx is the receiver's answer, a failed attempt retried on the schedule like a 500. Only
 * http(s) targets are contacted (decision “Webhook subscription”), whatever an older data file holds.
 */
export async function attemptDelivery(
  delivery: SignedDelivery,
  timeoutMs: number,
): Promise<{ ok: boolean; statusCode: number | null; error: string | null; durationMs: number }> {
  const started = performance.now();
  if (!isHttpUrl(delivery.url)) {
    return { ok: false, statusCode: null, error: 'not an http(s) URL', durationMs: 0 };
  }
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => undefined);
    const durationMs = Math.round(performance.now() - started);
    const ok = response.status >= 200 && response.status < 300;
    const redirect = response.status >= 300 && response.status < 400;
    const error = ok
      ? null
      : redirect
        ? `HTTP ${response.status} (redirects are not followed)`
        : `HTTP ${response.status}`;
    return { ok, statusCode: response.status, error, durationMs };
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    const message =
      error instanceof Error
        ? error.name === 'TimeoutError'
          ? `timeout after ${timeoutMs} ms`
          : error.message
        : String(error);
    return { ok: false, statusCode: null, error: message, durationMs };
  }
}

function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
