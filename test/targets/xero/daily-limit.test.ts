import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { XERO_LIMITS } from '../../../src/targets/xero/index.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';

// The day's calls per organisation depend on the app's tier: 1,000 on Starter, 5,000 on the others (Xero's
// tiers since 2 March 2026: https://developer.xero.com/faq/pricing-and-policy-updates; "rate limits of 5,000
// per day per organization (except for the Starter tier, which will have 1,000)", Accounting Today). Xero says
// what is left on every answer (X-DayLimit-Remaining), not the tier: the adapter learns the limit from it.

const minute = { perMinute: 60, concurrent: 5, windowMs: 1_000 };
const starter = doubleForFile(new XeroDouble({ tier: 'starter', limits: { ...minute, perDay: 5_000 } }));
const core = doubleForFile(new XeroDouble({ tier: 'core', limits: { ...minute, perDay: 5_000 } }));
const cipher = new TokenCipher('test-secret-for-xero-daily-limit');

/** The adapter with the Xero target's own limits (the minute compressed to a second). */
function connected(double: XeroDouble) {
  const limiter = new RealmLimiter({ ...XERO_LIMITS, windowMs: 1_000, marginMs: 50 });
  const org = xeroOrganisation(double, cipher, { limiter });
  return { ...org, target: org.target() };
}

describe('Xero’s daily limit by the app’s tier (daily-limit)', () => {
  it('the double answers each tier’s day in X-DayLimit-Remaining; the adapter learns 1,000 or 5,000 from it', async () => {
    for (const [double, limit] of [
      [starter, 1_000],
      [core, 5_000],
    ] as const) {
      const org = connected(double);
      await org.target.verify();
      const calls = double.stats(org.tenantId).today;
      expect(org.target.dailyUsage()).toMatchObject({ used: calls, limit });
    }
  });

  it('on the Starter tier, calls made elsewhere count: nearly spent past 800 of 1,000, then stopped before Xero’s 429', async () => {
    const org = connected(starter);
    starter.spendDay(org.tenantId, 990);
    await org.target.verify();
    expect(org.target.dailyUsage()).toMatchObject({ limit: 1_000, nearingLimit: true });
    expect(org.target.warning()).toMatch(/of 1000 calls/);
    let refused: unknown = null;
    for (let i = 0; i < 10 && !refused; i++)
      refused = await org.target.verify().then(
        () => null,
        (e) => e,
      );
    expect(String(refused)).toMatch(/daily limit of 1000 requests is spent/);
    expect(starter.stats(org.tenantId)).toMatchObject({ today: 1_000, breaches: [] });
  });
});
