import { type LimiterOptions, RealmLimiter } from '../oauth/limiter.js';
import { SlidingWindow } from '../oauth/sliding-window.js';

// QBO's limits per company (realm) and app (https://developer.intuit.com/app/developer/qbo/docs/learn/limits-and-throttles):
// 500 requests a minute, 10 a second, 40 batch requests a minute (a batch is one request of the 500), and
// 10 at once (https://developer.intuit.com/hub/blog/2016/08/08/idg-concurrent-api-use-changes-coming-soon).
// The minute and the concurrency are the shared limiter's (../oauth/limiter.ts); the second and the batch
// minute are two more windows here, counted as the shared one counts its minute: a request counts from its
// end, and every one in flight counts, so the target never counts more than we do.

export { type LimiterOptions, RealmLimiter };

export interface QuickBooksLimiterOptions extends LimiterOptions {
  /** Requests a second; QBO: 10. */
  perSecond: number;
  /** Batch requests in the window (windowMs, a minute by default); QBO: 40. */
  batchesPerMinute: number;
}

/** QBO's budget per company and app. */
export const quickBooksBudget: QuickBooksLimiterOptions = {
  perMinute: 500,
  perSecond: 10,
  concurrent: 10,
  batchesPerMinute: 40,
};

/** The shared limiter with QBO's second and batch minute on top. */
export class QuickBooksLimiter extends RealmLimiter {
  private readonly second: SlidingWindow;
  private readonly batches: SlidingWindow;

  constructor(options: QuickBooksLimiterOptions) {
    super(options);
    const now = options.now ?? Date.now;
    this.second = new SlidingWindow(options.perSecond, 1_000 + (options.marginMs ?? 0), now);
    this.batches = new SlidingWindow(
      options.batchesPerMinute,
      (options.windowMs ?? 60_000) + (options.marginMs ?? 0),
      now,
    );
  }

  /** A request in its turn: a place among the concurrent ones and the minute's, then in the second's. */
  override run<T>(task: () => Promise<T>): Promise<T> {
    return super.run(() => this.second.through(task));
  }

  /** A batch request: its turn among the minute's batches first, then as any request. */
  runBatch<T>(task: () => Promise<T>): Promise<T> {
    return this.batches.through(() => this.run(task));
  }
}

const limiters = new Map<string, QuickBooksLimiter>();

/** The worker-wide limiter of a realm: one per process, shared by every adapter and activity. */
export function realmLimiter(
  realmId: string,
  options: QuickBooksLimiterOptions = quickBooksBudget,
): QuickBooksLimiter {
  let limiter = limiters.get(realmId);
  if (!limiter) {
    limiter = new QuickBooksLimiter(options);
    limiters.set(realmId, limiter);
  }
  return limiter;
}
