import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` until it returns something other than undefined or false, and returns it; a probe that
 * throws is tried again. After `timeoutMs` it fails naming `what` and the probe's last error. The one poller
 * of the test harnesses (generous defaults: the machine is shared).
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await sleep(intervalMs);
  }
}

/**
 * waitFor with the probe first, for the tests' inline waits: `eventually(probe, 'what', timeoutMs)`. A probe
 * may answer a boolean (true ends the wait) or the value to return.
 */
export function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what = 'a condition',
  timeoutMs = 60_000,
): Promise<T> {
  return waitFor(what, async () => probe(), timeoutMs);
}
