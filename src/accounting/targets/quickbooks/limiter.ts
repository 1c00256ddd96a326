// QBO allows 500 requests per minute and 10 concurrent requests per realm (company). Every activity of the
// worker that talks to a realm takes its turn from the same limiter (`realmLimiter`), whatever adapter
// instance it holds, so parallel pushes and checks together stay under both limits.

export interface LimiterOptions {
  perMinute: number;
  concurrent: number;
  /** The window perMinute counts in; 60 s. The bench compresses it to measure a minute's rate faster. */
  windowMs?: number;
  now?: () => number;
}

export class RealmLimiter {
  private readonly perMinute: number;
  private readonly concurrent: number;
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly started: number[] = [];
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(options: LimiterOptions) {
    this.perMinute = options.perMinute;
    this.concurrent = options.concurrent;
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? 60_000;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
    try {
      return await task();
    } finally {
      this.active--;
      this.pump();
    }
  }

  private pump() {
    const windowStart = this.now() - this.windowMs;
    while (this.started.length > 0 && (this.started[0] ?? 0) <= windowStart) this.started.shift();
    while (this.waiting.length > 0 && this.active < this.concurrent && this.started.length < this.perMinute) {
      this.active++;
      this.started.push(this.now());
      this.waiting.shift()?.();
    }
    if (this.waiting.length > 0 && this.started.length >= this.perMinute && !this.timer) {
      // The oldest start leaves the one-minute window first; wake then.
      const wait = Math.max((this.started[0] ?? 0) + this.windowMs - this.now(), 1);
      this.timer = setTimeout(() => {
        this.timer = null;
        this.pump();
      }, wait);
      this.timer.unref();
    }
  }
}

const limiters = new Map<string, RealmLimiter>();

/** The worker-wide limiter of a realm: one per process, shared by every adapter and activity. */
export function realmLimiter(
  realmId: string,
  options: LimiterOptions = { perMinute: 500, concurrent: 10 },
): RealmLimiter {
  let limiter = limiters.get(realmId);
  if (!limiter) {
    limiter = new RealmLimiter(options);
    limiters.set(realmId, limiter);
  }
  return limiter;
}
