import { describe, expect, it } from 'vitest';
import { durationMs } from '../../../src/config/setting-types.js';
import { loadSettings } from '../../../src/config/settings.js';
import { xeroLimiter } from '../../../src/targets/xero/index.js';

// XERO_RATE_WINDOW: the minute of Xero's rate limit as booksync counts it. Xero's own by default; a shorter one
// only beside a double whose minute is as short, and never under a second.

describe("Xero's rate window", () => {
  it("is Xero's minute unless set, and refuses less than a second", () => {
    expect(durationMs(loadSettings({}).XERO_RATE_WINDOW)).toBe(60_000);
    expect(durationMs(loadSettings({ XERO_RATE_WINDOW: '6s' }).XERO_RATE_WINDOW)).toBe(6_000);
    expect(() => loadSettings({ XERO_RATE_WINDOW: '500ms' })).toThrow(/XERO_RATE_WINDOW.*at least 1s/s);
    expect(() => loadSettings({ XERO_RATE_WINDOW: 'a minute' })).toThrow(/XERO_RATE_WINDOW/);
  });

  it('counts the 50 calls a worker takes of the 60 in the window it is given, then waits for the window', async () => {
    // A window of 1 s (and the limiter's second of margin): the 51st call waits for the first to leave it.
    const limiter = xeroLimiter(`rate-window-${Date.now()}`, undefined, 1_000);
    const started = Date.now();
    const ends = await Promise.all(
      Array.from({ length: 51 }, () => limiter.run(async () => Date.now() - started)),
    );
    const sorted = ends.sort((a, b) => a - b);
    expect(sorted[49]).toBeLessThan(1_000);
    expect(sorted[50]).toBeGreaterThanOrEqual(1_900);
    expect(sorted[50]).toBeLessThan(10_000);
  });
});
