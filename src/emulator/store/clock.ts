import type Database from 'better-sqlite3';

/** Base time source; tests may pin it. The sandbox offset (POST /sandbox/clock/advance) is added on top. */
export type TimeSource = () => number;

const offsetKey = 'clock_offset_ms';

/** The emulator's notion of now: base time plus a persisted offset, so an advanced clock survives restarts. */
export class EmulatorClock {
  constructor(
    private readonly db: Database.Database,
    private readonly base: TimeSource = Date.now,
  ) {}

  nowMs(): number {
    return this.base() + this.offsetMs();
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  offsetMs(): number {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(offsetKey) as
      | { value: string }
      | undefined;
    return row ? Number(row.value) : 0;
  }

  advance(ms: number): void {
    this.db
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      )
      .run(offsetKey, String(this.offsetMs() + ms));
  }
}

/** D4: dates are YYYY-MM-DD (UTC). */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}
