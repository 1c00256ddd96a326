import { isSafeCents } from '../ledger/money.js';

// booksync's money is integer cents; the cloud targets' JSON (QBO, Xero) carries decimals. Both ways go through the decimal string,
// never through cents / 100 arithmetic, so no float drift reaches either side.

/** 1234 -> 12.34: the number JSON prints as exactly the two-place decimal. */
export function centsToAmount(cents: number): number {
  if (!isSafeCents(cents)) throw new RangeError(`not a safe integer amount of cents: ${cents}`);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return Number(`${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`);
}

/** 12.34 -> 1234, rounding to cents what QBO computed with more places. */
export function amountToCents(amount: number): number {
  if (!Number.isFinite(amount)) throw new RangeError(`not an amount: ${amount}`);
  const [whole = '0', fraction = '00'] = Math.abs(amount).toFixed(2).split('.');
  const cents = Number(whole) * 100 + Number(fraction);
  return amount < 0 ? -cents : cents;
}
