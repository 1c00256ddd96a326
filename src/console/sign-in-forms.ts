import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// The sign-in form's token: single-use and expiring. Issued with each form (nothing stored: a random nonce
// and an expiry, with an HMAC under a key this process made), taken by the POST: refused when forged, past
// its expiry, or already taken. The nonces taken are kept until they expire, `maxTaken` at most (a flood
// past that forgets the oldest, which only lets their own sender try once more, still throttled); a restart
// makes a new key, so the forms issued before it are refused.

export type FormTokenCheck = 'ok' | 'invalid' | 'expired' | 'used';

export class SignInForms {
  readonly #key = randomBytes(32);
  /** Nonce taken -> its expiry, oldest first. */
  readonly #taken = new Map<string, number>();

  readonly lifetimeMs: number;
  private readonly maxTaken: number;
  private readonly now: () => number;
  constructor(lifetimeMs = 15 * 60 * 1000, maxTaken = 100_000, now: () => number = Date.now) {
    this.lifetimeMs = lifetimeMs;
    this.maxTaken = maxTaken;
    this.now = now;
  }

  issue(): string {
    const body = `${randomBytes(16).toString('base64url')}.${this.now() + this.lifetimeMs}`;
    return `${body}.${this.#mac(body).toString('base64url')}`;
  }

  take(token: string | undefined): FormTokenCheck {
    const [nonce, expiry, mac, ...rest] = (token ?? '').split('.');
    if (!nonce || !expiry || !mac || rest.length > 0) return 'invalid';
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(`${nonce}.${expiry}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    const now = this.now();
    if (!(Number(expiry) > now)) return 'expired';
    for (const [taken, until] of this.#taken) {
      if (until > now) break;
      this.#taken.delete(taken);
    }
    if (this.#taken.has(nonce)) return 'used';
    this.#taken.set(nonce, Number(expiry));
    if (this.#taken.size > this.maxTaken) this.#taken.delete(this.#taken.keys().next().value as string);
    return 'ok';
  }

  #mac(body: string): Buffer {
    return createHmac('sha256', this.#key).update(body).digest();
  }
}
