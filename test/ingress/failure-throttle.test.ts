import { describe, expect, it } from 'vitest';
import { FailureThrottle, type ThrottledBurst } from '../../src/ingress/failure-throttle.js';

// The throttle behind the console's sign-in and the command API's bearer check: bounded in memory whatever
// the number of addresses, a burst of refused attempts reported once with its count, a key free again once
// its failures leave the window.

describe('FailureThrottle', () => {
  it('keeps at most maxKeys keys under many distinct addresses, the least recently seen dropped first', () => {
    const throttle = new FailureThrottle({ limit: 3, windowMs: 60_000, maxKeys: 1_000 });
    for (let i = 0; i < 50_000; i++) throttle.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(throttle.size).toBe(1_000);
    // The most recent stay.
    for (let i = 0; i < 2; i++) throttle.failed('10.0.195.79');
    expect(throttle.retryAfter('10.0.195.79')).not.toBeNull();
  });

  it('reports a burst of refused attempts once, with its count, when it ends; the key tries again after the window', () => {
    let now = 1_000_000;
    const bursts: ThrottledBurst[] = [];
    const throttle = new FailureThrottle({
      limit: 2,
      windowMs: 60_000,
      now: () => now,
      onBurstEnd: (b) => bursts.push(b),
    });
    throttle.failed('a');
    now += 1_000;
    throttle.failed('a');
    expect(throttle.retryAfter('b')).toBeNull();
    for (let i = 0; i < 5; i++) {
      now += 1_000;
      expect(throttle.retryAfter('a')).toBe(60 - (now - 1_000_000) / 1_000);
    }
    expect(bursts).toEqual([]);
    now = 1_000_000 + 60_001;
    expect(throttle.retryAfter('a')).toBeNull();
    expect(bursts).toEqual([{ key: 'a', refused: 5, from: 1_002_000, to: 1_006_000 }]);
  });

  it('reports the burst of a key it drops for room', () => {
    const bursts: ThrottledBurst[] = [];
    const throttle = new FailureThrottle({
      limit: 1,
      windowMs: 60_000,
      maxKeys: 2,
      onBurstEnd: (b) => bursts.push(b),
    });
    throttle.failed('a');
    expect(throttle.retryAfter('a')).not.toBeNull();
    throttle.failed('b');
    throttle.failed('c');
    expect(throttle.size).toBe(2);
    expect(bursts).toEqual([expect.objectContaining({ key: 'a', refused: 1 })]);
  });
});
