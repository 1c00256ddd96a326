import { UnmappableStateError } from '../errors.js';

// Accounting dates are UTC calendar dates (D4: the service speaks UTC), so every mapper agrees on the date
// of the same fact whatever machine runs it.

/** YYYY-MM-DD of a unix-milliseconds time, an ISO date-time, or an ISO date (returned as is). */
export function utcDate(value: number | string, what: string): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const time = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(time)) throw new UnmappableStateError(`${what}: not a date: ${String(value)}`);
  return new Date(time).toISOString().slice(0, 10);
}
