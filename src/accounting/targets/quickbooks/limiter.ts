import { companyLimiter, type LimiterOptions, RealmLimiter } from '../oauth/limiter.js';

// QBO allows 500 requests per minute and 10 concurrent requests per realm (company). The limiter itself is
// shared with the other cloud targets (../oauth/limiter.ts); here is QBO's budget.

export { type LimiterOptions, RealmLimiter };

/** The worker-wide limiter of a realm: one per process, shared by every adapter and activity. */
export function realmLimiter(
  realmId: string,
  options: LimiterOptions = { perMinute: 500, concurrent: 10 },
): RealmLimiter {
  return companyLimiter('quickbooks', realmId, options);
}
