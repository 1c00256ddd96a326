import { FailureThrottle } from '../ingress/failure-throttle.js';
import type { AuditLog } from './audit-log.js';

// Guessing a console password: after 10 wrong passwords for one account from one address within 15 minutes,
// that account is refused from that address (429) until the window has passed. Keyed by address and account:
// a flood against one account (or against no configured account) from an address locks out neither that
// account elsewhere nor another account at the same address. The sign-ins refused meanwhile are one audit
// row per burst, with their count.

export const signInLimit = 10;
export const signInWindowMs = 15 * 60 * 1000;

/** What a refused sign-in names: a configured account, or none. */
export const unknownAccount = 'unknown account';

export class SignInThrottle {
  readonly #throttle: FailureThrottle;

  constructor(
    audit: AuditLog,
    options: { maxKeys?: number; now?: () => number; limit?: number; windowMs?: number } = {},
  ) {
    const now = options.now ?? Date.now;
    this.#throttle = new FailureThrottle({
      limit: options.limit ?? signInLimit,
      windowMs: options.windowMs ?? signInWindowMs,
      now,
      ...(options.maxKeys ? { maxKeys: options.maxKeys } : {}),
      onBurstEnd: ({ key, refused, from, to }) => {
        const [ip, account] = JSON.parse(key) as [string, string];
        audit.record({
          who: account,
          role: null,
          action: 'sign-in',
          detail: `${refused} sign-in${refused === 1 ? '' : 's'} refused while throttled, ${new Date(from).toISOString()} to ${new Date(to).toISOString()}`,
          outcome: 'throttled',
          ip,
        });
      },
    });
  }

  /** Seconds until `account` may be tried again from `address` (the attempt counted), or null. */
  retryAfter(address: string, account: string): number | null {
    return this.#throttle.retryAfter(JSON.stringify([address, account]));
  }

  failed(address: string, account: string): void {
    this.#throttle.failed(JSON.stringify([address, account]));
  }

  succeeded(address: string, account: string): void {
    this.#throttle.succeeded(JSON.stringify([address, account]));
  }

  /** Writes the bursts under way to the audit log (before it is read, and on close). */
  flush(): void {
    this.#throttle.flush();
  }

  get size(): number {
    return this.#throttle.size;
  }
}
