// Money is integer cents everywhere; these helpers never go through floating point.

export function isSafeCents(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/** `$12.34`, `-$0.05`, `$1000000.00`: hledger's default style for a `$` commodity, no thousands separator. */
export function formatUsd(cents: number): string {
  if (!isSafeCents(cents)) throw new RangeError(`not a safe integer amount of cents: ${cents}`);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const rest = abs % 100;
  // Exact: abs - rest is a multiple of 100, so the division has an integer result.
  const dollars = (abs - rest) / 100;
  return `${sign}$${dollars}.${String(rest).padStart(2, '0')}`;
}
