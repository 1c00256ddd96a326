// Guessing the console password: after `limit` refused sign-ins from one address within `windowMs`, that
// address is refused (429) until the window has passed. In memory, per process.

export class SignInThrottle {
  readonly #failures = new Map<string, number[]>();

  constructor(
    private readonly limit = 10,
    private readonly windowMs = 15 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  #recent(address: string): number[] {
    const since = this.now() - this.windowMs;
    const kept = (this.#failures.get(address) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.#failures.delete(address);
    else this.#failures.set(address, kept);
    return kept;
  }

  blocked(address: string): boolean {
    return this.#recent(address).length >= this.limit;
  }

  failed(address: string): void {
    this.#failures.set(address, [...this.#recent(address), this.now()]);
  }

  succeeded(address: string): void {
    this.#failures.delete(address);
  }
}
