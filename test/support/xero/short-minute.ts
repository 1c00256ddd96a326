import type { XeroLimits } from '@booksync/vendor-doubles/xero/double';

// Xero's minute shortened for the tests that run booksync's processes against the Xero double: the double
// counts its 60 calls an organisation in this window and booksync counts its own in the same
// (XERO_RATE_WINDOW), so a day's pushes hold Xero's limits without waiting out real minutes. Every limit
// stays Xero's; only the minute is shorter.

/** The shortened minute, in milliseconds and as booksync's setting. */
export const shortMinute = { ms: 6_000, setting: '6s' } as const;

/** Xero's limits with the minute shortened (5 in flight, 60 a minute, the double's default day). */
export const shortMinuteLimits: XeroLimits = {
  concurrent: 5,
  perMinute: 60,
  perDay: 5_000,
  windowMs: shortMinute.ms,
};
