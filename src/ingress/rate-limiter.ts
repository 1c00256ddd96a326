// A per-caller request budget held in memory (the codec server's): a token bucket per caller address, refilled
// continuously at `perMinute` a minute and holding at most `perMinute` (the burst). Its memory is bounded: at
// most `maxCallers` addresses are tracked; a full bucket is the same as none, so those are dropped first when
// the table is full, and a caller that still finds no room shares one overflow bucket with every other such
// caller (many addresses buy no more requests than one).

export interface RateLimiterOptions {
  /** Requests a caller may make a minute, which is also its burst. */
  perMinute: number;
  /** Addresses tracked at most. Default 1,000. */
  maxCallers?: number;
  /** Milliseconds now. Default Date.now. */
  now?: () => number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class CallerRateLimiter {
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #maxCallers: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #overflow: Bucket;

  constructor(options: RateLimiterOptions) {
    if (!Number.isInteger(options.perMinute) || options.perMinute < 1) {
      throw new Error('a rate limit is a whole number of requests a minute, at least 1');
    }
    this.#capacity = options.perMinute;
    this.#perMs = options.perMinute / 60_000;
    this.#maxCallers = options.maxCallers ?? 1_000;
    this.#now = options.now ?? Date.now;
    this.#overflow = { tokens: this.#capacity, at: this.#now() };
  }

  /** Addresses tracked now (at most maxCallers). */
  get tracked(): number {
    return this.#buckets.size;
  }

  /** Takes one request from the caller's budget, or says how long until one is back. */
  take(caller: string): RateDecision {
    const now = this.#now();
    const bucket = this.#bucketOf(caller, now);
    this.#refill(bucket, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000)),
    };
  }

  #refill(bucket: Bucket, now: number): void {
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + Math.max(0, now - bucket.at) * this.#perMs);
    bucket.at = now;
  }

  #bucketOf(caller: string, now: number): Bucket {
    const known = this.#buckets.get(caller);
    if (known) return known;
    if (this.#buckets.size >= this.#maxCallers) {
      for (const [name, bucket] of this.#buckets) {
        this.#refill(bucket, now);
        if (bucket.tokens >= this.#capacity) this.#buckets.delete(name);
      }
      if (this.#buckets.size >= this.#maxCallers) return this.#overflow;
    }
    const bucket = { tokens: this.#capacity, at: now };
    this.#buckets.set(caller, bucket);
    return bucket;
  }
}
