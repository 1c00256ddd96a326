import { describe, expect, it } from 'vitest';
import { DailyCapReachedError, RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import { XERO_LIMITS } from '../../../src/targets/xero/index.js';

// The shared limiter as the Xero target uses it: a daily budget in a rolling window (Xero's 24 hours, not a
// UTC day), and Xero's own count from each answer's headers (observe), on a clock of the test's own.

function limiter(now: { t: number }, extra: Partial<ConstructorParameters<typeof RealmLimiter>[0]> = {}) {
  return new RealmLimiter({
    perMinute: 1_000,
    concurrent: 5,
    perDay: 3,
    dayWindowMs: 10_000,
    now: () => now.t,
    ...extra,
  });
}

const call = (l: RealmLimiter) => l.run(async () => 'ok');

describe('RealmLimiter: a rolling day and the target’s own count', () => {
  it('spends the day in a rolling window: the budget comes back as the oldest calls leave it, not at midnight', async () => {
    const now = { t: Date.parse('2026-11-25T23:59:55Z') };
    const l = limiter(now);
    for (const at of [0, 1_000, 2_000]) {
      now.t += at === 0 ? 0 : 1_000;
      await call(l);
    }
    const refused = await call(l).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DailyCapReachedError);
    // The first call leaves the window 10 s after it was made, 8 s from now (across UTC midnight).
    expect((refused as DailyCapReachedError).retryAfterMs).toBe(8_000);
    now.t += 8_001;
    await expect(call(l)).resolves.toBe('ok');
    expect(l.dailyUsage()).toMatchObject({ used: 3, limit: 3 });
  });

  it('follows the target’s count when it is higher than its own, and waits a refusal for the day', async () => {
    const now = { t: 1_000_000 };
    const l = limiter(now, { perDay: 100, reportTtlMs: 5_000 });
    await call(l);
    l.observe({ dayRemaining: 2 });
    expect(l.dailyUsage()?.used).toBe(98);
    await call(l);
    await call(l);
    await expect(call(l)).rejects.toBeInstanceOf(DailyCapReachedError);
    // The report stands for reportTtlMs; then one call may go to learn the count again.
    now.t += 5_001;
    await expect(call(l)).resolves.toBe('ok');
    l.observe({ refused: { limit: 'day', retryAfterMs: 60_000 } });
    const blocked = (await call(l).catch((e: unknown) => e)) as DailyCapReachedError;
    expect(blocked.retryAfterMs).toBe(60_000);
  });

  it('pauses when the target says none is left in its minute', async () => {
    const l = new RealmLimiter({ perMinute: 100, concurrent: 5, windowMs: 200 });
    await call(l);
    l.observe({ minuteRemaining: 0 });
    const started = Date.now();
    await call(l);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('without dayWindowMs keeps the UTC day', async () => {
    const now = { t: Date.parse('2026-11-25T23:59:58Z') };
    const l = limiter(now, { dayWindowMs: undefined as unknown as number });
    for (let i = 0; i < 3; i++) await call(l);
    const refused = (await call(l).catch((e: unknown) => e)) as DailyCapReachedError;
    expect(refused.retryAfterMs).toBe(2_000);
    expect(refused.message).toMatch(/\(2026-11-25 UTC\)/);
  });
});

describe('RealmLimiter as the Xero target sets it: the daily limit learned from what Xero says is left', () => {
  // Xero's day is 1,000 calls on the Starter tier and 5,000 on the others; its answers say only what is left
  // (X-DayLimit-Remaining), so the limiter takes the smallest tier at least what is left plus its own calls.
  const tiers = (now: { t: number }) => new RealmLimiter({ ...XERO_LIMITS, now: () => now.t });

  it('starts at the lowest tier and learns a higher one from the first answer', async () => {
    const now = { t: 1_000_000 };
    const l = tiers(now);
    expect(l.dailyUsage()?.limit).toBe(1_000);
    for (let i = 0; i < 10; i++) await call(l);
    l.observe({ dayRemaining: 4_990 });
    expect(l.dailyUsage()).toMatchObject({ used: 10, limit: 5_000 });
  });

  it('keeps the Starter tier’s 1,000 when that is what the answers imply, others’ calls included', async () => {
    const now = { t: 1_000_000 };
    const l = tiers(now);
    await call(l);
    // 1 of ours, 299 made by another process of the app: 700 left of 1,000.
    l.observe({ dayRemaining: 700 });
    expect(l.dailyUsage()).toMatchObject({ used: 300, limit: 1_000 });
  });
});
