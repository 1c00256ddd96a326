import { UnmappableStateError } from '../errors.js';

// Accounting dates are business days in the business's time zone (BOOKS_TIME_ZONE, an IANA name): a sale at
// 20:00 on 31 January in Los Angeles is January's, though it is 1 February in UTC. The service gives instants
// (payments' createdAt in milliseconds, refunds' and memos' date-times) and some plain dates (an external
// payment's paidAt, "the date the money moved, as stated by the caller"), which are business days already.
// Pure: the zone arithmetic is src/workflow-safe/business-days.ts.

import { dayInZone } from '../../workflow-safe/business-days.js';

export {
  checkedTimeZone,
  dayAfter,
  dayInZone,
  earliestDay,
  InvalidTimeZoneError,
} from '../../workflow-safe/business-days.js';

/**
 * The business day of a service time: unix milliseconds or an ISO date-time, as a day in `timeZone`; an ISO
 * date (YYYY-MM-DD) is a business day already and returned as it is.
 */
export function businessDay(value: number | string, timeZone: string, what: string): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const time = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(time)) throw new UnmappableStateError(`${what}: not a date: ${String(value)}`);
  return dayInZone(time, timeZone);
}
