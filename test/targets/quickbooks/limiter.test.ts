import { describe, expect, it, vi } from 'vitest';
import {
  QuickBooksLimiter,
  quickBooksBudget,
  RealmLimiter,
  realmLimiter,
} from '../../../src/targets/quickbooks/limiter.js';

// QBO's limits per realm and app: 10 requests at once, 500 a minute, 10 a second, 40 batch requests a minute.

describe('QuickBooks realm limiter', () => {
  it('never runs more than the concurrent limit', async () => {
    const limiter = new RealmLimiter({ perMinute: 500, concurrent: 10 });
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 40 }, () =>
        limiter.run(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 5));
          active--;
        }),
      ),
    );
    expect(peak).toBe(10);
  });

  it('holds the per-minute budget until the oldest request leaves the window', async () => {
    vi.useFakeTimers();
    try {
      const limiter = new RealmLimiter({ perMinute: 3, concurrent: 10 });
      const started: number[] = [];
      const runs = Array.from({ length: 5 }, (_, i) => limiter.run(async () => started.push(i)));
      await vi.advanceTimersByTimeAsync(59_000);
      expect(started).toEqual([0, 1, 2]);
      await vi.advanceTimersByTimeAsync(1_001);
      await Promise.all(runs);
      expect(started).toEqual([0, 1, 2, 3, 4]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the target's count inside the limit however long requests spend on the way", async () => {
    vi.useFakeTimers();
    try {
      // The target counts a request when it arrives, somewhere between its start and its end here: a
      // request slowed on the way (a loaded machine, a token refresh first) must not let a later one in beside it.
      const limiter = new RealmLimiter({ perMinute: 5, concurrent: 3 });
      const arrivals: number[] = [];
      let seed = 7;
      const random = () => {
        seed = (seed * 16_807) % 2_147_483_647;
        return seed / 2_147_483_647;
      };
      const runs = Array.from({ length: 30 }, () => {
        const duration = random() * 20_000;
        const arrivesAfter = random() * duration;
        return limiter.run(async () => {
          await new Promise((r) => setTimeout(r, arrivesAfter));
          arrivals.push(Date.now());
          await new Promise((r) => setTimeout(r, duration - arrivesAfter));
        });
      });
      await vi.advanceTimersByTimeAsync(30 * 80_000);
      await Promise.all(runs);
      expect(arrivals).toHaveLength(30);
      for (const t of arrivals) {
        expect(arrivals.filter((u) => u > t - 60_000 && u <= t).length).toBeLessThanOrEqual(5);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('is one limiter per realm for the whole worker, with QBO’s budget', () => {
    expect(realmLimiter('123')).toBe(realmLimiter('123'));
    expect(realmLimiter('123')).not.toBe(realmLimiter('456'));
    expect(realmLimiter('123')).toBeInstanceOf(QuickBooksLimiter);
  });

  it('holds 10 a second and 40 batch requests a minute, counted on arrival at the target', async () => {
    vi.useFakeTimers();
    try {
      const limiter = new QuickBooksLimiter(quickBooksBudget);
      const arrivals: { at: number; batch: boolean }[] = [];
      const request = (batch: boolean) => async () => {
        await new Promise((r) => setTimeout(r, 30));
        arrivals.push({ at: Date.now(), batch });
        await new Promise((r) => setTimeout(r, 30));
      };
      const runs = Array.from({ length: 120 }, (_, i) =>
        i % 2 === 0 ? limiter.runBatch(request(true)) : limiter.run(request(false)),
      );
      await vi.advanceTimersByTimeAsync(5 * 60_000);
      await Promise.all(runs);
      expect(arrivals).toHaveLength(120);
      for (const { at } of arrivals) {
        expect(arrivals.filter((a) => a.at > at - 1_000 && a.at <= at).length).toBeLessThanOrEqual(10);
        expect(
          arrivals.filter((a) => a.batch && a.at > at - 60_000 && a.at <= at).length,
        ).toBeLessThanOrEqual(40);
      }
      // Requests that are not batches are not held behind the batches' minute.
      const plain = arrivals.filter((a) => !a.batch).map((a) => a.at);
      expect(Math.max(...plain) - Math.min(...plain)).toBeLessThan(10_000);
    } finally {
      vi.useRealTimers();
    }
  });
});
