// A cloud target's per-company request limits, held for the whole worker: QBO allows 500 requests a minute
// and 10 at once per realm; Xero 60 a minute, 5 at once and 5,000 a day per tenant. Every activity that
// talks to a company takes its turn from the same limiter (`companyLimiter`), whatever adapter instance it
// holds, so parallel pushes and checks together stay under every limit.
//
// The daily budget (Xero's) is counted per UTC day. Past `warnAt` of it the limiter reports `nearingDailyCap`
// (the adapter logs it and the push flags it) before the cap is reached; at the cap, `run` refuses with
// DailyCapReachedError instead of sending a request the target would answer with a 429 until midnight.

export interface LimiterOptions {
  perMinute: number;
  concurrent: number;
  /** Requests a UTC day (Xero: 5,000); unset: no daily budget. */
  perDay?: number;
  /** Share of perDay after which the budget is reported as nearly spent; default 0.8. */
  warnAt?: number;
  /** The window perMinute counts in; 60 s. The bench compresses it to measure a minute's rate faster. */
  windowMs?: number;
  /** Added to the window, for a target whose clock counts its minute a little longer than ours. */
  marginMs?: number;
  now?: () => number;
  /** Called once a day when the daily count passes warnAt. */
  onNearingDailyCap?: (usage: DailyUsage) => void;
}

export interface DailyUsage {
  day: string;
  used: number;
  limit: number;
}

export class DailyCapReachedError extends Error {
  override readonly name = 'DailyCapReachedError';
  constructor(
    readonly usage: DailyUsage,
    /** Until the next UTC midnight. */
    readonly retryAfterMs: number,
  ) {
    super(`the daily limit of ${usage.limit} requests is spent (${usage.day} UTC)`);
  }
}

export class RealmLimiter {
  private readonly perMinute: number;
  private readonly concurrent: number;
  private readonly now: () => number;
  private readonly windowMs: number;
  /**
   * When each request of the window ended. The target counts a request when it arrives, which we cannot
   * see; it arrives before it ends, so counting requests by their end, plus every one still in flight, never
   * counts fewer than the target, however long a request spends on the way (a loaded machine, a token refresh
   * before the send). Counting by start, a request delayed past the window let the next window's first
   * request in beside it: 61 in Xero's minute.
   */
  private readonly ended: number[] = [];
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private day = '';
  private usedToday = 0;
  private warnedFor = '';

  constructor(private readonly options: LimiterOptions) {
    this.perMinute = options.perMinute;
    this.concurrent = options.concurrent;
    this.now = options.now ?? Date.now;
    this.windowMs = (options.windowMs ?? 60_000) + (options.marginMs ?? 0);
  }

  /** Today's (UTC) requests against the daily budget; null without one. */
  dailyUsage(): DailyUsage | null {
    if (this.options.perDay === undefined) return null;
    this.rollDay();
    return { day: this.day, used: this.usedToday, limit: this.options.perDay };
  }

  /** True once today's requests passed warnAt of the daily budget. */
  nearingDailyCap(): boolean {
    const usage = this.dailyUsage();
    return usage !== null && usage.used >= usage.limit * (this.options.warnAt ?? 0.8);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    this.spendToday();
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
    try {
      return await task();
    } finally {
      this.active--;
      this.ended.push(this.now());
      this.pump();
    }
  }

  private rollDay() {
    const day = new Date(this.now()).toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.usedToday = 0;
    }
  }

  private spendToday() {
    const limit = this.options.perDay;
    if (limit === undefined) return;
    this.rollDay();
    if (this.usedToday >= limit) {
      const midnight = Date.parse(`${this.day}T00:00:00Z`) + 86_400_000;
      throw new DailyCapReachedError(
        { day: this.day, used: this.usedToday, limit },
        Math.max(midnight - this.now(), 1_000),
      );
    }
    this.usedToday++;
    if (this.warnedFor !== this.day && this.nearingDailyCap()) {
      this.warnedFor = this.day;
      this.options.onNearingDailyCap?.({ day: this.day, used: this.usedToday, limit });
    }
  }

  private pump() {
    const windowStart = this.now() - this.windowMs;
    while (this.ended.length > 0 && (this.ended[0] ?? 0) <= windowStart) this.ended.shift();
    while (
      this.waiting.length > 0 &&
      this.active < this.concurrent &&
      this.ended.length + this.active < this.perMinute
    ) {
      this.active++;
      this.waiting.shift()?.();
    }
    if (
      this.waiting.length > 0 &&
      this.ended.length > 0 &&
      !this.timer &&
      this.ended.length + this.active >= this.perMinute
    ) {
      // The oldest ended request leaves the window first; wake then.
      const wait = Math.max((this.ended[0] ?? 0) + this.windowMs - this.now(), 1);
      this.timer = setTimeout(() => {
        this.timer = null;
        this.pump();
      }, wait);
      this.timer.unref();
    }
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
