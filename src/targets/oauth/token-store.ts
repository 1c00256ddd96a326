import type { Logger } from 'pino';
import { z } from 'zod';
import { TargetDisconnectedError, TargetUnavailableError } from '../errors.js';
import { ConnectionLockBusy, type RefreshTokenExpiry, type SealedTokenStorage } from './connection-store.js';
import type { TokenCipher } from './token-cipher.js';

// OAuth 2.0 for one company of a cloud target (QuickBooks Online, Xero). The access token (QBO: an hour,
// Xero: 30 minutes) is refreshed a minute before it expires and again when the API answers 401, by one
// refresher at a time: concurrent callers of one store wait for the same refresh, and stores sharing the
// storage (several workers, on one host or many) take its lock (`exclusive`: a lock file, a PostgreSQL
// advisory lock), then read the stored token again (another worker may have rotated it meanwhile), because
// both targets rotate refresh tokens and a token spent twice is refused (invalid_grant). Each rotated refresh
// token is sealed and saved before its access token is used, still under the lock; a rotation that could not
// be saved is kept in memory and saved before anything else next time, unless the stored token changed
// meanwhile (a reconnect). A refused refresh token (revoked, expired) stops the push with one clear reason:
// reconnect, with the command that does it.

/** Which target the tokens are for, as errors and logs name it. */
export interface OAuthTarget {
  /** The target's name (`quickbooks`, `xero`). */
  target: string;
  /** How people call it (`QuickBooks`, `Xero`). */
  label: string;
}

export interface OAuthClientOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  storage: SealedTokenStorage;
  cipher: TokenCipher;
  logger?: Logger;
  now?: () => number;
  /** Refresh this long before the access token expires. */
  earlyMs?: number;
  /** Headers every token request carries besides OAuth's (QBO: asking for the hard expiry). */
  tokenRequestHeaders?: Record<string, string>;
}

const tokenResponse = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number().positive(),
  // Seconds left before the refresh token is refused whatever its use (Intuit, when asked for it).
  x_refresh_token_hard_expires_in: z.number().nonnegative().optional(),
});

/** The command that gives booksync a new refresh token. */
export const reconnectCommand = (target: string) => `run booksync targets connect ${target}`;

/** The target said the refresh token is no good: only a new consent (reconnect) helps. */
export class ReconnectRequired extends TargetDisconnectedError {
  /** The token endpoint's `error` (invalid_grant...), or why no token could be sent. */
  readonly oauthError: string;
  constructor(who: OAuthTarget, oauthError: string) {
    super(who.target, `${who.label} refused the connection (${oauthError}): ${reconnectCommand(who.target)}`);
    this.oauthError = oauthError;
  }
}

export class CompanyTokenStore {
  private access: { token: string; expiresAt: number } | null = null;
  private refreshing: Promise<string> | null = null;
  /** A rotated refresh token the storage refused, and the stored one it replaces. */
  private unsaved: { sealed: string; replaces: string | null; expiry: RefreshTokenExpiry } | null = null;
  private readonly now: () => number;
  private readonly earlyMs: number;

  private readonly who: OAuthTarget;
  private readonly options: OAuthClientOptions;
  constructor(who: OAuthTarget, options: OAuthClientOptions) {
    this.who = who;
    this.options = options;
    this.now = options.now ?? Date.now;
    this.earlyMs = options.earlyMs ?? 60_000;
  }

  /** A valid access token, refreshed first when it is about to expire. */
  async accessToken(): Promise<string> {
    if (this.access && this.access.expiresAt - this.earlyMs > this.now()) return this.access.token;
    return this.refresh();
  }

  /** After a 401 with `rejected`: refresh once, unless another caller already did. */
  async rejected(rejected: string): Promise<string> {
    if (this.access && this.access.token !== rejected) return this.access.token;
    this.access = null;
    return this.refresh();
  }

  /**
   * The authorization-code step of `booksync targets connect <target>`; returns the first access token.
   * `codeVerifier`: the PKCE verifier of the consent that asked for the code (a target documenting PKCE).
   */
  async connect(code: string, redirectUri: string, codeVerifier?: string): Promise<string> {
    return this.exclusive(async () => {
      this.unsaved = null;
      const form = { grant_type: 'authorization_code', code, redirect_uri: redirectUri };
      return this.grant(codeVerifier === undefined ? form : { ...form, code_verifier: codeVerifier }, null);
    });
  }

  private refresh(): Promise<string> {
    this.refreshing ??= this.exclusive(() => this.refreshOnce()).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** Runs `work` under the storage's lock (other workers sharing it wait); a lock held too long is an outage. */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const { storage } = this.options;
    if (!storage.exclusive) return work();
    try {
      return await storage.exclusive(work);
    } catch (error) {
      if (error instanceof ConnectionLockBusy)
        throw new TargetUnavailableError(this.who.target, error.message, undefined, { cause: error });
      throw error;
    }
  }

  /** Holding the lock: the stored token is read now, so a rotation by another worker is the one used. */
  private async refreshOnce(): Promise<string> {
    let sealed = await this.options.storage.load();
    if (this.unsaved) {
      // A rotation this store could not save: it is the live token unless the stored one changed meanwhile.
      const { sealed: rotated, replaces, expiry } = this.unsaved;
      if (sealed === replaces) {
        await this.saveRotated(rotated, replaces, expiry);
        sealed = rotated;
      }
      this.unsaved = null;
    }
    for (let attempt = 1; ; attempt++) {
      if (!sealed) throw new ReconnectRequired(this.who, 'no refresh token stored');
      try {
        return await this.grant(
          { grant_type: 'refresh_token', refresh_token: this.options.cipher.open(sealed) },
          sealed,
        );
      } catch (error) {
        // A process sharing the storage without its lock (an older booksync) may have rotated the token under
        // us: a refused token that is no longer the stored one is retried with the stored one; the same one
        // refused means reconnect.
        if (!(error instanceof ReconnectRequired)) throw error;
        if (attempt >= 3) throw await this.recordRefusal(sealed, error);
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        const latest = await this.options.storage.load();
        if (latest === sealed) throw await this.recordRefusal(sealed, error);
        sealed = latest;
      }
    }
  }

  /** Keeps the refusal with the stored token (the console shows it); a failure to record it changes nothing. */
  private async recordRefusal(sealed: string, error: ReconnectRequired): Promise<ReconnectRequired> {
    await this.options.storage
      .refused?.(sealed, error.oauthError)
      .catch((cause: unknown) =>
        this.options.logger?.warn(
          { err: { message: (cause as Error).message } },
          `${this.who.target} refusal not recorded in the connection`,
        ),
      );
    return error;
  }

  /**
   * Saves a rotated refresh token, retrying a failing storage a few times: the target has already spent the
   * previous token, so this one is the connection. When it still fails, it is kept for the next refresh.
   */
  private async saveRotated(
    sealed: string,
    replaces: string | null,
    expiry: RefreshTokenExpiry,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.storage.save(sealed, expiry);
        return;
      } catch (error) {
        if (attempt < 3) {
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
          continue;
        }
        this.unsaved = { sealed, replaces, expiry };
        this.options.logger?.error(
          { err: { message: (error as Error).message } },
          `${this.who.target} rotated refresh token not saved; kept in memory until it is`,
        );
        throw new TargetUnavailableError(
          this.who.target,
          `the rotated refresh token could not be saved: ${(error as Error).message}`,
          undefined,
          { cause: error },
        );
      }
    }
  }

  /** One token request; `spent`: the stored (sealed) token the request spends, null for a code exchange. */
  private async grant(form: Record<string, string>, spent: string | null): Promise<string> {
    const { tokenUrl, clientId, clientSecret } = this.options;
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          ...this.options.tokenRequestHeaders,
        },
        body: new URLSearchParams(form).toString(),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (cause) {
      throw new TargetUnavailableError(
        this.who.target,
        `token endpoint unreachable: ${(cause as Error).message}`,
        undefined,
        { cause },
      );
    }
    const text = await response.text();
    if (response.status === 400 || response.status === 401) {
      // invalid_grant: revoked, expired or already rotated; invalid_client: wrong app credentials.
      const error = /"error"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? `HTTP ${response.status}`;
      this.options.logger?.warn({ error, grant: form.grant_type }, `${this.who.target} token refused`);
      throw new ReconnectRequired(this.who, error);
    }
    if (!response.ok) {
      throw new TargetUnavailableError(this.who.target, `token endpoint answered ${response.status}`);
    }
    const tokens = tokenResponse.parse(JSON.parse(text));
    const hard = tokens.x_refresh_token_hard_expires_in;
    const expiry =
      hard === undefined ? {} : { hardExpiresAt: new Date(this.now() + hard * 1000).toISOString() };
    await this.saveRotated(this.options.cipher.seal(tokens.refresh_token), spent, expiry);
    this.access = { token: tokens.access_token, expiresAt: this.now() + tokens.expires_in * 1000 };
    this.options.logger?.info({ expiresInS: tokens.expires_in }, `${this.who.target} access token refreshed`);
    return tokens.access_token;
  }
}
