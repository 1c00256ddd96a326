import { setTimeout as sleep } from 'node:timers/promises';
import { TargetUnavailableError } from '../targets/errors.js';

// A command run by hand against a target that answers "not now" (QuickBooks' 429 ThrottleExceeded, Xero's
// 429 with Retry-After, a 5xx, Tryton down for a moment) waits as the target asks and asks again, saying so,
// instead of failing a step the person would only run again. Bounded: past the deadline the target's own
// answer is the command's.

/** Wait after an answer without Retry-After: 5 s, doubled each time, at most a minute (QBO's window). */
const FIRST_WAIT_MS = 5_000;
const LONGEST_WAIT_MS = 60_000;

export interface WhenAvailableOptions {
  out: (line: string) => void;
  /** How long the command may wait in all, in milliseconds. */
  withinMs: number;
  /** For tests: the wait itself. */
  wait?: (ms: number) => Promise<unknown>;
  now?: () => number;
}

export async function whenAvailable<T>(work: () => Promise<T>, options: WhenAvailableOptions): Promise<T> {
  const wait = options.wait ?? ((ms: number) => sleep(ms));
  const now = options.now ?? Date.now;
  const deadline = now() + options.withinMs;
  let fallback = FIRST_WAIT_MS;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof TargetUnavailableError)) throw error;
      // A Retry-After of 0 (QuickBooks past its second's limit) still waits a second: asking again at once
      // only spends the next request of the same second.
      const ms = Math.max(error.retryAfterMs ?? fallback, SHORTEST_WAIT_MS);
      if (error.retryAfterMs === undefined) fallback = Math.min(fallback * 2, LONGEST_WAIT_MS);
      if (now() + ms > deadline) throw error;
      options.out(`${error.message}; asking again in ${Math.max(1, Math.round(ms / 1000))} s`);
      await wait(ms);
    }
  }
}

/** The least wait before asking again, whatever Retry-After said. */
const SHORTEST_WAIT_MS = 1_000;

/** How long `targets connect` and `targets setup` wait in all for a throttled or unavailable QuickBooks or Xero. */
export const TARGET_WAIT_MS = 180_000;
