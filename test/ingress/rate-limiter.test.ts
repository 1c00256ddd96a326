import { describe, expect, it } from 'vitest';
import { CallerRateLimiter } from '../../src/ingress/rate-limiter.js';

// The codec server's per-caller budget: a token bucket per address, refilled continuously, its table bounded
// (a flood of addresses neither grows memory nor buys more requests than one address).

describe('the per-caller rate limiter', () => {
  it('allows a burst of perMinute, then one request per 60/perMinute seconds', () => {
    let now = 0;
    const limiter = new CallerRateLimiter({ perMinute: 3, now: () => now });
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 20 });
    now += 19_000;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 1_000;
    expect(limiter.take('a').allowed).toBe(true);
    // Another address has its own budget.
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('tracks at most maxCallers addresses; the others share one overflow budget', () => {
    let now = 0;
    const limiter = new CallerRateLimiter({ perMinute: 2, maxCallers: 3, now: () => now });
    for (const caller of ['a', 'b', 'c']) expect(limiter.take(caller).allowed).toBe(true);
    expect(limiter.tracked).toBe(3);
    // The table is full of buckets in use: new addresses draw from the one overflow bucket.
    expect(limiter.take('d').allowed).toBe(true);
    expect(limiter.take('e').allowed).toBe(true);
    expect(limiter.take('f').allowed).toBe(false);
    expect(limiter.tracked).toBe(3);
    // Once the tracked buckets are full again (idle a minute), they make room.
    now += 60_000;
    expect(limiter.take('g').allowed).toBe(true);
    expect(limiter.tracked).toBe(1);
  });

  it('refuses a limit that is not a whole number of at least 1', () => {
    expect(() => new CallerRateLimiter({ perMinute: 0 })).toThrow(/at least 1/);
    expect(() => new CallerRateLimiter({ perMinute: 1.5 })).toThrow(/whole number/);
  });
});
