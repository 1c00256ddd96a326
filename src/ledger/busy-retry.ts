import { setTimeout as sleep } from 'node:timers/promises';
import { LedgerBusyError } from './errors.js';

// SQLite reports another connection's write lock as SQLITE_BUSY once busy_timeout has run out. The
// ledger then backs off asynchronously (the event loop keeps running, so a lock holder in this process can
// finish) and tries again, a bounded number of times, before surfacing LedgerBusyError.

export interface BusyRetryPolicy {
  /** Attempts in total, the first one included. */
  maxAttempts: number;
  /** Delay before the second attempt; doubles each time, plus up to 50% jitter. */
  initialDelayMs: number;
  maxDelayMs: number;
}

export const defaultBusyRetryPolicy: BusyRetryPolicy = { maxAttempts: 8, initialDelayMs: 5, maxDelayMs: 250 };

export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export async function withBusyRetry<T>(
  operation: () => T,
  policy: BusyRetryPolicy,
  onRetry?: (attempt: number, delayMs: number) => void,
): Promise<T> {
  let delay = policy.initialDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return operation();
    } catch (error) {
      if (!isBusyError(error)) throw error;
      if (attempt >= policy.maxAttempts) throw new LedgerBusyError(attempt, { cause: error });
      const wait = Math.min(policy.maxDelayMs, delay) * (1 + Math.random() * 0.5);
      onRetry?.(attempt, wait);
      await sleep(wait);
      delay *= 2;
    }
  }
}
