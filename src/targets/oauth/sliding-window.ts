/**
 * At most `limit` tasks in any `windowMs` and `concurrent` at once, counting each task from its end and each
 * running one. The target counts a request when it arrives, which we cannot see; it arrives before it ends,
 * so counting requests by their end, plus every one still in flight, never counts fewer than the target,
 * however long a request spends on the way (a loaded machine, a token refresh before the send). Counting by
 * start, a request delayed past the window let the next window's first request in beside it: 61 in Xero's
 * minute.
 */
export class SlidingWindow {
  /** When each task of the window ended. */
  private readonly ended: number[] = [];
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** No task starts before this (the target said to wait). */
  private pausedUntil = 0;

  private readonly limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  private readonly concurrent: number;
  constructor(limit: number, windowMs: number, now: () => number, concurrent = Number.POSITIVE_INFINITY) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
    this.concurrent = concurrent;
  }

  /** Tasks started and not yet ended. */
  get active(): number {
    return this.running;
  }

  async through<T>(task: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
    try {
      return await task();
    } finally {
      this.running--;
      this.ended.push(this.now());
      this.pump();
    }
  }

  /** Holds every waiting task until `until` (or a later pause already set). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.pump();
  }

  /**
   * Wakes up again after `afterMs`, unless a wake-up is set already. The timer keeps the process alive: a task
   * waits on it, and a command with nothing else pending (`booksync targets setup --apply` creating accounts
   * past QBO's second) would otherwise end there, its exit code 0, its work half done.
   */
  private wakeIn(afterMs: number) {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, afterMs);
  }

  private pump() {
    const paused = this.pausedUntil - this.now();
    if (paused > 0) {
      if (this.waiting.length > 0) this.wakeIn(paused);
      return;
    }
    const windowStart = this.now() - this.windowMs;
    while (this.ended.length > 0 && (this.ended[0] ?? 0) <= windowStart) this.ended.shift();
    while (
      this.waiting.length > 0 &&
      this.running < this.concurrent &&
      this.ended.length + this.running < this.limit
    ) {
      this.running++;
      this.waiting.shift()?.();
    }
    if (this.waiting.length > 0 && this.ended.length > 0 && this.ended.length + this.running >= this.limit) {
      // The oldest ended task leaves the window first; wake then.
      this.wakeIn(Math.max((this.ended[0] ?? 0) + this.windowMs - this.now(), 1));
    }
  }
}
