// Refused credentials, counted per key (an address, or an address and an account): after `limit` failures
// within `windowMs` the key is refused until the oldest of them leaves the window. The attempts refused
// meanwhile are counted, not reported one by one: a key's burst is reported once, with its count, when it
// ends (the key no longer blocked, evicted, or flushed). In memory and bounded: at most `maxKeys` keys, the
// least recently seen dropped first, and at most `limit` failure times per key.

export interface ThrottledBurst {
  key: string;
  /** Attempts refused while the key was blocked. */
  refused: number;
  /** The first and last of them (ms since the epoch). */
  from: number;
  to: number;
}

export interface FailureThrottleOptions {
  limit: number;
  windowMs: number;
  /** Keys tracked at most. Default 10,000. */
  maxKeys?: number;
  now?: () => number;
  /** Told once per burst, when it ends. */
  onBurstEnd?: (burst: ThrottledBurst) => void;
}

interface Entry {
  /** The latest failure times, oldest first, `limit` at most. */
  failures: number[];
  burst: Omit<ThrottledBurst, 'key'> | null;
}

export class FailureThrottle {
  readonly #entries = new Map<string, Entry>();
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #onBurstEnd: (burst: ThrottledBurst) => void;

  constructor(options: FailureThrottleOptions) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#maxKeys = options.maxKeys ?? 10_000;
    this.#now = options.now ?? Date.now;
    this.#onBurstEnd = options.onBurstEnd ?? (() => undefined);
  }

  /** Keys tracked now. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Whether `key` is refused now: the seconds until it may try again (the attempt counted in its burst), or
   * null when it may try.
   */
  retryAfter(key: string): number | null {
    const entry = this.#current(key);
    if (!entry || entry.failures.length < this.#limit) return null;
    const now = this.#now();
    entry.burst = entry.burst
      ? { ...entry.burst, refused: entry.burst.refused + 1, to: now }
      : { refused: 1, from: now, to: now };
    this.#keep(key, entry);
    return Math.max(1, Math.ceil(((entry.failures[0] as number) + this.#windowMs - now) / 1000));
  }

  failed(key: string): void {
    const entry = this.#current(key) ?? { failures: [], burst: null };
    entry.failures = [...entry.failures, this.#now()].slice(-this.#limit);
    this.#keep(key, entry);
  }

  succeeded(key: string): void {
    const entry = this.#entries.get(key);
    if (entry) this.#end(key, entry);
    this.#entries.delete(key);
  }

  /** Ends every burst under way (reported with its count so far); the keys stay blocked. */
  flush(): void {
    for (const [key, entry] of this.#entries) this.#end(key, entry);
  }

  /** The key's entry with its old failures dropped; a burst over is reported; null when nothing is left. */
  #current(key: string): Entry | null {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    const since = this.#now() - this.#windowMs;
    entry.failures = entry.failures.filter((t) => t > since);
    if (entry.failures.length < this.#limit) this.#end(key, entry);
    if (entry.failures.length === 0) {
      this.#entries.delete(key);
      return null;
    }
    return entry;
  }

  /** Stores the entry as the most recently seen; beyond maxKeys, the least recently seen goes. */
  #keep(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxKeys) {
      const [oldest, evicted] = this.#entries.entries().next().value as [string, Entry];
      this.#end(oldest, evicted);
      this.#entries.delete(oldest);
    }
  }

  #end(key: string, entry: Entry): void {
    if (!entry.burst) return;
    const burst = { key, ...entry.burst };
    entry.burst = null;
    this.#onBurstEnd(burst);
  }
}
