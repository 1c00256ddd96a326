// A cloud target's per-company request limits, held for the whole worker: QBO allows 500 requests a minute
// and 10 at once per realm; Xero 60 a minute, 5 at once and 1,000 or 5,000 a day per tenant (by the app's
// tier, learned from Xero's own count: dayLimits). Every activity that
// talks to a company takes its turn from the same limiter (`companyLimiter`), whatever adapter instance it
// holds, so parallel pushes and checks together stay under every limit.
//
// The daily budget (Xero's) is counted per UTC day. Past `warnAt` of it the limiter reports `nearingDailyCap`
// (the adapter logs it and the push flags it) before the cap is reached; at the cap, `run` refuses with
// DailyCapReachedError instead of sending a request the target would answer with a 429 until midnight.

import { SlidingWindow } from './sliding-window.js';

export interface LimiterOptions {
  perMinute: number;
  concurrent: number;
  /** Requests a UTC day (Xero: by the app's tier, see dayLimits); unset: no daily budget. */
  perDay?: number;
  /**
   * The daily budgets the target may have (Xero: 1,000 or 5,000 by the app's tier), for a target that reports
   * what is left (observe's dayRemaining) but not its limit: perDay is the budget until a report shows more,
   * then the smallest of these at least what was left plus this limiter's own requests Xero counted.
   */
  dayLimits?: readonly number[];
  /** Share of perDay after which the budget is reported as nearly spent; default 0.8. */
  warnAt?: number;
  /** The window perMinute counts in; 60 s. The bench compresses it to measure a minute's rate faster. */
  windowMs?: number;
  /** Added to the window, for a target whose clock counts its minute a little longer than ours. */
  marginMs?: number;
  now?: () => number;
  /** Called once a day when the daily count passes warnAt. */
  onNearingDailyCap?: (usage: DailyUsage) => void;
  /**
   * The daily budget counted in a rolling window of this length (Xero: 24 h, not reset at UTC midnight)
   * instead of per UTC day; unset: per UTC day.
   */
  dayWindowMs?: number;
  /**
   * How long a count reported by the target (observe) stands when nothing refreshes it; default an hour. Past
   * it, one request may go out to learn the count again.
   */
  reportTtlMs?: number;
}

/** What the target said of its own count after an answer (Xero: its X-...Limit-Remaining headers, a 429). */
export interface TargetReport {
  /** Requests left of the daily budget by the target's count (Xero: X-DayLimit-Remaining). */
  dayRemaining?: number;
  /** Requests left in the target's minute (Xero: X-MinLimit-Remaining, X-AppMinLimit-Remaining); 0 pauses. */
  minuteRemaining?: number;
  /** The target refused a request for this limit (Xero: X-Rate-Limit-Problem), to come back after retryAfterMs. */
  refused?: { limit: string; retryAfterMs?: number };
}

export interface DailyUsage {
  day: string;
  used: number;
  limit: number;
}

export class DailyCapReachedError extends Error {
  override readonly name = 'DailyCapReachedError';
  readonly usage: DailyUsage;
  /** Until the next UTC midnight. */
  readonly retryAfterMs: number;
  constructor(usage: DailyUsage, retryAfterMs: number) {
    super(
      `the daily limit of ${usage.limit} requests is spent (${usage.day}${/^\d{4}-/.test(usage.day) ? ' UTC' : ''})`,
    );
    this.usage = usage;
    this.retryAfterMs = retryAfterMs;
  }
}

export class RealmLimiter {
  private readonly now: () => number;
  /** The minute's window and the concurrency (sliding-window.ts counts requests by their end). */
  private readonly minute: SlidingWindow;
  private day = '';
  private usedToday = 0;
  private warnedFor = '';
  /** When each request of the rolling day was sent (with dayWindowMs). */
  private readonly spent: number[] = [];
  /** The target's own daily count at its last report, and the requests sent since. */
  private reported: { used: number; at: number; sentAfter: number } | null = null;
  /** No request before this (the target refused for its day). */
  private dayBlockedUntil = 0;
  /** The daily budget: options.perDay, or more once the target's reports show it (dayLimits). */
  private perDay: number | undefined;

  private readonly options: LimiterOptions;
  constructor(options: LimiterOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.perDay = options.perDay;
    const windowMs = (options.windowMs ?? 60_000) + (options.marginMs ?? 0);
    this.minute = new SlidingWindow(options.perMinute, windowMs, this.now, options.concurrent);
  }

  /** Today's (UTC) requests against the daily budget; null without one. */
  dailyUsage(): DailyUsage | null {
    if (this.perDay === undefined) return null;
    this.rollDay();
    return { day: this.day, used: this.usedNow(), limit: this.perDay };
  }

  /**
   * The target's own count, after an answer: the daily count follows it when it is higher than ours (other
   * callers of the same company, a restarted worker); none left in its minute pauses a window; a refusal
   * for its day or minute waits what it said.
   */
  observe(report: TargetReport): void {
    const now = this.now();
    if (report.dayRemaining !== undefined) this.learnDayLimit(report.dayRemaining);
    const limit = this.perDay;
    if (report.dayRemaining !== undefined && limit !== undefined) {
      // Requests still in flight may not be in the target's count yet: counted too.
      this.reported = {
        used: Math.max(limit - report.dayRemaining, 0) + this.minute.active,
        at: now,
        sentAfter: 0,
      };
    }
    let pausedUntil = 0;
    if (report.minuteRemaining !== undefined && report.minuteRemaining <= 0)
      pausedUntil = now + this.minute.windowMs;
    if (report.refused) {
      const wait = report.refused.retryAfterMs;
      if (/day/i.test(report.refused.limit))
        this.dayBlockedUntil = Math.max(this.dayBlockedUntil, now + (wait ?? this.reportTtlMs()));
      else if (wait !== undefined) pausedUntil = Math.max(pausedUntil, now + wait);
    }
    this.minute.pause(pausedUntil);
  }

  /**
   * The daily budget a report of what is left implies (dayLimits): at least what is left plus this limiter's
   * requests of the day that have ended (the target counted them; others' requests only make it more).
   */
  private learnDayLimit(remaining: number) {
    const limits = this.options.dayLimits;
    if (!limits || limits.length === 0) return;
    this.rollDay();
    const ours = this.options.dayWindowMs === undefined ? this.usedToday : this.spent.length;
    const atLeast = remaining + Math.max(ours - this.minute.active, 0);
    const learned = [...limits].sort((a, b) => a - b).find((l) => l >= atLeast) ?? atLeast;
    this.perDay = Math.max(this.perDay ?? 0, learned);
  }

  private reportTtlMs(): number {
    return this.options.reportTtlMs ?? 3_600_000;
  }

  /** The daily count: ours, or the target's last report plus what we sent since, whichever is higher. */
  private usedNow(): number {
    const ours = this.options.dayWindowMs === undefined ? this.usedToday : this.spent.length;
    const r = this.reported;
    const theirs = r && this.now() - r.at < this.reportTtlMs() ? r.used + r.sentAfter : 0;
    return Math.max(ours, theirs);
  }

  /** True once today's requests passed warnAt of the daily budget. */
  nearingDailyCap(): boolean {
    const usage = this.dailyUsage();
    return usage !== null && usage.used >= usage.limit * (this.options.warnAt ?? 0.8);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    this.spendToday();
    return this.minute.through(task);
  }

  private rollDay() {
    const window = this.options.dayWindowMs;
    if (window !== undefined) {
      const start = this.now() - window;
      while (this.spent.length > 0 && (this.spent[0] ?? 0) <= start) this.spent.shift();
      this.day = `the last ${Math.round(window / 3_600_000)} h`;
      if (!this.nearingDailyCapRaw()) this.warnedFor = '';
      return;
    }
    const day = new Date(this.now()).toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.usedToday = 0;
    }
  }

  private spendToday() {
    const limit = this.perDay;
    if (limit === undefined) return;
    this.rollDay();
    const now = this.now();
    const used = this.usedNow();
    if (used >= limit || now < this.dayBlockedUntil) {
      throw new DailyCapReachedError({ day: this.day, used, limit }, Math.max(this.capWait(now), 1_000));
    }
    this.usedToday++;
    if (this.options.dayWindowMs !== undefined) this.spent.push(now);
    if (this.reported) this.reported.sentAfter++;
    if (this.warnedFor !== this.day && this.nearingDailyCap()) {
      this.warnedFor = this.day;
      this.options.onNearingDailyCap?.({ day: this.day, used: this.usedToday, limit });
    }
  }

  /** How long until a request may go again once the daily budget is spent. */
  private capWait(now: number): number {
    if (now < this.dayBlockedUntil) return this.dayBlockedUntil - now;
    const window = this.options.dayWindowMs;
    const limit = this.perDay ?? 0;
    if (this.reported && this.reported.used + this.reported.sentAfter >= limit)
      return this.reported.at + this.reportTtlMs() - now;
    if (window !== undefined) return (this.spent[0] ?? now) + window - now;
    return Date.parse(`${this.day}T00:00:00Z`) + 86_400_000 - now;
  }

  private nearingDailyCapRaw(): boolean {
    const limit = this.perDay;
    return limit !== undefined && this.usedNow() >= limit * (this.options.warnAt ?? 0.8);
  }
}

const limiters = new Map<string, RealmLimiter>();

/** The worker-wide limiter of one company of one target: one per process, shared by every adapter. */
export function companyLimiter(target: string, companyId: string, options: LimiterOptions): RealmLimiter {
  const key = `${target}\0${companyId}`;
  let limiter = limiters.get(key);
  if (!limiter) {
    limiter = new RealmLimiter(options);
    limiters.set(key, limiter);
  }
  return limiter;
}
