import type Database from 'better-sqlite3';
import { EmulatorHttpError } from '../errors.js';

/** Base time source; tests may pin it. The sandbox offset (POST /sandbox/clock/advance) is added on top. */
export type TimeSource = () => number;

const offsetKey = 'clock_offset_ms';
const dayMs = 86_400_000;

/**
 * E17: how far the shared clock may run ahead in total, 5 years (1,830 days). Far beyond every window the
 * emulator models (ACH returns, 60 days; check windows, weeks), and far inside what a Date can hold, so no
 * sequence of moves can leave an invalid clock behind.
 */
export const maxClockOffsetMs = 1_830 * dayMs;

const clockError = (message: string) => new EmulatorHttpError(400, message, 'INVALID_CLOCK_ADVANCE');

/** The emulator's notion of now: base time plus a persisted offset, so an advanced clock survives restarts. */
export class EmulatorClock {
  private readonly db: Database.Database;
  private readonly base: TimeSource;
  constructor(db: Database.Database, base: TimeSource = Date.now) {
    this.db = db;
    this.base = base;
  }

  nowMs(): number {
    return this.base() + this.offsetMs();
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** An offset outside the bound (left by an emulator before E17) reads as 0, so the clock stays valid. */
  offsetMs(): number {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(offsetKey) as
      | { value: string }
      | undefined;
    const stored = row ? Number(row.value) : 0;
    return Number.isFinite(stored) && stored >= 0 && stored <= maxClockOffsetMs ? stored : 0;
  }

  /** Moves the clock forward by ms; refuses (400 INVALID_CLOCK_ADVANCE) a move past the bound. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw clockError('the clock only moves forward by a finite amount');
    const next = this.offsetMs() + ms;
    if (next > maxClockOffsetMs) {
      throw clockError(
        `the clock may run at most ${maxClockOffsetMs / dayMs} days ahead in total; it is ${Math.floor(this.offsetMs() / dayMs)} days ahead`,
      );
    }
    if (Number.isNaN(new Date(this.base() + next).getTime())) throw clockError('the clock would be invalid');
    this.db
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      )
      .run(offsetKey, String(next));
  }
}

/** Decision “Time formats”: dates are YYYY-MM-DD (UTC). */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}
