// Business days in a time zone (BOOKS_TIME_ZONE, an IANA name): the calendar day an instant falls on there,
// and day arithmetic on YYYY-MM-DD days. Pure, Intl only: workflow code and configuration may use it.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export class InvalidTimeZoneError extends Error {
  override readonly name = 'InvalidTimeZoneError';
}

/** The zone's canonical IANA name; InvalidTimeZoneError when the runtime does not know it. */
export function checkedTimeZone(name: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new InvalidTimeZoneError(
      `BOOKS_TIME_ZONE: ${JSON.stringify(name)} is not a time zone (an IANA name such as America/Los_Angeles or UTC)`,
    );
  }
}

const hourMs = 3_600_000;
/** Days already worked out, per zone and quarter-hour of UTC time (bounded). */
const recent = new Map<string, string>();

/** YYYY-MM-DD of an instant (unix milliseconds) as a calendar day in `timeZone`. */
export function dayInZone(time: number, timeZone: string): string {
  // UTC needs no calendar; elsewhere Intl is slow (microseconds a call), so a day found for one quarter-hour
  // of a zone serves every instant of it (offsets change only on quarter-hour boundaries).
  if (timeZone === 'UTC') return new Date(time).toISOString().slice(0, 10);
  const key = `${timeZone}|${Math.floor(time / (hourMs / 4))}`;
  const known = recent.get(key);
  if (known !== undefined) return known;
  const day = formattedDay(time, timeZone);
  if (recent.size > 10_000) recent.clear();
  recent.set(key, day);
  return day;
}

function formattedDay(time: number, timeZone: string): string {
  const parts = formatterFor(timeZone).formatToParts(new Date(time));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}

/** YYYY-MM-DD of the day after a YYYY-MM-DD day (calendar arithmetic; no zone involved). */
export function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** The earliest of some YYYY-MM-DD days (they sort as strings); undefined for none. */
export function earliestDay(days: readonly string[]): string | undefined {
  let earliest: string | undefined;
  for (const day of days) if (earliest === undefined || day < earliest) earliest = day;
  return earliest;
}
