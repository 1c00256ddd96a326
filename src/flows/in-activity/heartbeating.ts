import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';

// Signs of life for an activity scheduled with a heartbeat timeout: a beat every third of it (at most every
// 10 s) for as long as the work runs, so a worker that dies mid-attempt is noticed within the timeout and the
// attempt retried then, not at the end of its start-to-close timeout. Outside an activity (a test calling
// the function directly) the work just runs.

function currentActivity(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

/** The interval between beats for a heartbeat timeout of `timeoutMs`. */
export function beatEveryMs(timeoutMs: number | undefined): number {
  return Math.min(10_000, timeoutMs ? Math.max(100, Math.floor(timeoutMs / 3)) : 10_000);
}

/** `work`, with the current activity heartbeating while it runs (when it was given a heartbeat timeout). */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const activity = currentActivity();
  const timeout = activity?.info.heartbeatTimeoutMs;
  if (!activity || !timeout) return work();
  const beat = setInterval(() => activity.heartbeat(), beatEveryMs(timeout));
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

/**
 * Waits `ms`, ending early (with the activity's cancellation) when the attempt is cancelled: a worker shutting
 * down, or a heartbeat the server no longer takes. A paced wait of a minute no longer holds a shutdown.
 */
export async function pause(ms: number): Promise<void> {
  const signal = currentActivity()?.cancellationSignal;
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    // The activity's own reason (a CancelledFailure), not the timer's AbortError.
    throw signal?.aborted ? signal.reason : error;
  }
}
