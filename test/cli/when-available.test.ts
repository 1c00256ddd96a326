import { describe, expect, it } from 'vitest';
import { whenAvailable } from '../../src/cli/when-available.js';
import { TargetRefusedError, TargetUnavailableError } from '../../src/targets/errors.js';

// A command run by hand waits out a target's "not now" as the target asks, within its bound.

function clock() {
  let at = 0;
  const waits: number[] = [];
  return {
    waits,
    now: () => at,
    wait: async (ms: number) => {
      waits.push(ms);
      at += ms;
    },
  };
}

describe('whenAvailable', () => {
  it('waits the Retry-After the target gave, else 5 s doubling, and returns the answer', async () => {
    const c = clock();
    const lines: string[] = [];
    const answers: (Error | string)[] = [
      new TargetUnavailableError('quickbooks', 'throttled: ThrottleExceeded', 12_000),
      new TargetUnavailableError('quickbooks', 'Service Unavailable'),
      new TargetUnavailableError('quickbooks', 'Service Unavailable'),
      'accounts read',
    ];
    const result = await whenAvailable(
      async () => {
        const next = answers.shift() as Error | string;
        if (next instanceof Error) throw next;
        return next;
      },
      { out: (line) => lines.push(line), withinMs: 60_000, ...c },
    );
    expect(result).toBe('accounts read');
    expect(c.waits).toEqual([12_000, 5_000, 10_000]);
    expect(lines[0]).toBe('quickbooks unavailable: throttled: ThrottleExceeded; asking again in 12 s');
  });

  it('waits a second when the target says to ask again at once (Retry-After: 0), not a burst of requests', async () => {
    const c = clock();
    const answers: (Error | string)[] = [
      new TargetUnavailableError('quickbooks', 'throttled: ThrottleExceeded', 0),
      new TargetUnavailableError('quickbooks', 'throttled: ThrottleExceeded', 0),
      'account created',
    ];
    let asked = 0;
    const result = await whenAvailable(
      async () => {
        asked++;
        const next = answers.shift() as Error | string;
        if (next instanceof Error) throw next;
        return next;
      },
      { out: () => undefined, withinMs: 60_000, ...c },
    );
    expect(result).toBe('account created');
    expect(asked).toBe(3);
    expect(c.waits).toEqual([1_000, 1_000]);
  });

  it("gives the target's answer once the next wait would pass the bound, and never waits on a refusal", async () => {
    const c = clock();
    let calls = 0;
    const throttled = whenAvailable(
      async () => {
        calls++;
        throw new TargetUnavailableError('xero', 'throttled', 60_000);
      },
      { out: () => {}, withinMs: 150_000, ...c },
    );
    await expect(throttled).rejects.toThrow('xero unavailable: throttled');
    expect(calls).toBe(3);
    expect(c.waits).toEqual([60_000, 60_000]);

    const refused = whenAvailable(
      async () => {
        throw new TargetRefusedError('xero', 'ValidationException');
      },
      { out: () => {}, withinMs: 150_000, ...c },
    );
    await expect(refused).rejects.toBeInstanceOf(TargetRefusedError);
    expect(c.waits).toHaveLength(2);
  });
});
