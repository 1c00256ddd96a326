import type { Logger } from 'pino';
import { z } from 'zod';
import { TargetDisconnectedError, TargetUnavailableError } from '../errors.js';
import type { TokenCipher } from './token-cipher.js';

// OAuth 2.0 for one company of a cloud target (QuickBooks Online, Xero). The access token (QBO: an hour,
// Xero: 30 minutes) is refreshed a minute before it expires and again when the API answers 401, by one
// refresher at a time (concurrent callers wait for the same refresh), because both rotate refresh tokens and
// two refreshes racing with the same token would leave one with a dead token. Each rotated refresh token is
// sealed and saved before its access token is used. A refused refresh token (revoked, expired) stops the
// push with one clear reason: reconnect, with the command that does it.

/** Where the sealed refresh token lives (a file, a table row...). */
export interface SealedTokenStorage {
  load(): Promise<string | null>;
  save(sealed: string): Promise<void>;
}

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
}

const tokenResponse = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number().positive(),
});

/** The command that gives booksync a new refresh token. */
export const reconnectCommand = (target: string) => `run booksync targets connect ${target}`;

/** The target said the refresh token is no good: only a new consent (reconnect) helps. */
export class ReconnectRequired extends TargetDisconnectedError {
  constructor(who: OAuthTarget, reason: string) {
    super(who.target, `${who.label} refused the connection (${reason}): ${reconnectCommand(who.target)}`);
  }
}

export class CompanyTokenStore {
  private access: { token: string; expiresAt: number } | null = null;
  private refreshing: Promise<string> | null = null;
  private readonly now: () => number;
  private readonly earlyMs: number;

  constructor(
    private readonly who: OAuthTarget,
    private readonly options: OAuthClientOptions,
  ) {
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

  /** The authorization-code step of `booksync targets connect <target>`; returns the first access token. */
  async connect(code: string, redirectUri: string): Promise<string> {
    return this.grant({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  }

  private refresh(): Promise<string> {
    this.refreshing ??= this.refreshOnce().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refreshOnce(): Promise<string> {
    let sealed = await this.options.storage.load();
    for (let attempt = 1; ; attempt++) {
      if (!sealed) throw new ReconnectRequired(this.who, 'no refresh token stored');
      try {
        return await this.grant({
          grant_type: 'refresh_token',
          refresh_token: this.options.cipher.open(sealed),
        });
      } catch (error) {
        // Another process sharing the storage may have rotated the token under us: a refused token that is
        // no longer the stored one is retried with the stored one; the same one refused means reconnect.
        if (!(error instanceof ReconnectRequired) || attempt >= 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        const latest = await this.options.storage.load();
        if (latest === sealed) throw error;
        sealed = latest;
      }
    }
  }

  private async grant(form: Record<string, string>): Promise<string> {
    const { tokenUrl, clientId, clientSecret } = this.options;
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
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
    await this.options.storage.save(this.options.cipher.seal(tokens.refresh_token));
    this.access = { token: tokens.access_token, expiresAt: this.now() + tokens.expires_in * 1000 };
    this.options.logger?.info({ expiresInS: tokens.expires_in }, `${this.who.target} access token refreshed`);
    return tokens.access_token;
  }
}
