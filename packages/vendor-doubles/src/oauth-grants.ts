import { createHash, randomBytes } from 'node:crypto';

// The authorization server half of the OAuth targets' test doubles (QuickBooks Online, Xero): authorization
// codes from the consent page, refresh tokens that rotate (the old one stops working once a new one is
// issued) and access tokens that expire, each for what the app was granted (QBO: a company; Xero: the
// organisations chosen on the consent page). Each double answers its token endpoint in its provider's words.
// A code may be issued with a PKCE code_challenge (RFC 7636, S256; the Xero double's consent page does, as
// Xero documents): its exchange is then refused (invalid_grant) unless the code_verifier hashes to it.

/** An access token issued: what it grants, until when. */
export interface IssuedAccess<G> {
  grant: G;
  expiresAt: number;
}

/** What the token endpoint answers a request: its refusal (OAuth's error code), or the tokens issued. */
export type TokenExchange =
  | { error: 'invalid_client' | 'unsupported_grant_type' | 'invalid_grant' }
  | { accessToken: string; refreshToken: string; expiresIn: number };

export class OAuthGrants<G> {
  private readonly codes = new Map<string, { grant: G; codeChallenge: string | undefined }>();
  private readonly accessTokens = new Map<string, IssuedAccess<G>>();
  private readonly refreshTokens = new Map<string, G>();
  /** Refresh-token grants answered so far. */
  refreshGrants = 0;

  private readonly client: { clientId: string; clientSecret: string };
  /** How long an access token lives. */
  public accessTokenTtlMs: number;
  constructor(client: { clientId: string; clientSecret: string }, accessTokenTtlMs: number) {
    this.client = client;
    this.accessTokenTtlMs = accessTokenTtlMs;
  }

  /**
   * The authorization code the consent page hands to the redirect URI; `codeChallenge`: the S256 challenge
   * the consent URL carried, which the code's exchange must then answer with its verifier.
   */
  authorize(grant: G, codeChallenge?: string): string {
    const code = `code-${randomBytes(8).toString('hex')}`;
    this.codes.set(code, { grant, codeChallenge });
    return code;
  }

  /** A refresh token as `booksync targets connect` would have stored it. */
  connect(grant: G): string {
    const token = `rt-${randomBytes(12).toString('hex')}`;
    this.refreshTokens.set(token, grant);
    return token;
  }

  /** The app disconnected: every token whose grant `covers` says so stops working. */
  revoke(covers: (grant: G) => boolean): void {
    for (const [token, grant] of this.refreshTokens) if (covers(grant)) this.refreshTokens.delete(token);
    for (const [token, issued] of this.accessTokens)
      if (covers(issued.grant)) this.accessTokens.delete(token);
  }

  /** One refresh token revoked (the revoke endpoint). */
  revokeRefreshToken(token: string): void {
    this.refreshTokens.delete(token);
  }

  /** Access tokens die now: the next call gets a 401. */
  expireAccessTokens(): void {
    for (const issued of this.accessTokens.values()) issued.expiresAt = 0;
  }

  /** The access token of an `Authorization: Bearer …` header, expired or not. */
  access(authorization: string | undefined): IssuedAccess<G> | undefined {
    return this.accessTokens.get((authorization ?? '').replace(/^Bearer /, ''));
  }

  /** The token endpoint: the client's Basic credentials, then an authorization code or a refresh token. */
  exchange(authorization: string | undefined, body: Record<string, string>): TokenExchange {
    const basic = Buffer.from(`${this.client.clientId}:${this.client.clientSecret}`).toString('base64');
    if (authorization !== `Basic ${basic}`) return { error: 'invalid_client' };
    let grant: G | undefined;
    if (body.grant_type === 'authorization_code') {
      // Single use: a refused exchange spends the code too.
      const issued = this.codes.get(body.code ?? '');
      this.codes.delete(body.code ?? '');
      if (issued && !answersChallenge(issued.codeChallenge, body.code_verifier))
        return { error: 'invalid_grant' };
      grant = issued?.grant;
    } else if (body.grant_type === 'refresh_token') {
      grant = this.refreshTokens.get(body.refresh_token ?? '');
      // Rotation: the old refresh token stops working once a new one is issued.
      this.refreshTokens.delete(body.refresh_token ?? '');
      if (grant) this.refreshGrants++;
    } else {
      return { error: 'unsupported_grant_type' };
    }
    if (!grant) return { error: 'invalid_grant' };
    const access = `at-${randomBytes(12).toString('hex')}`;
    const refresh = `rt-${randomBytes(12).toString('hex')}`;
    this.accessTokens.set(access, { grant, expiresAt: Date.now() + this.accessTokenTtlMs });
    this.refreshTokens.set(refresh, grant);
    return {
      accessToken: access,
      refreshToken: refresh,
      expiresIn: Math.floor(this.accessTokenTtlMs / 1000),
    };
  }
}

/** Whether a code exchange answers its code's PKCE challenge: none asked, or SHA-256 of the verifier is it. */
function answersChallenge(codeChallenge: string | undefined, codeVerifier: string | undefined): boolean {
  if (codeChallenge === undefined) return true;
  if (codeVerifier === undefined) return false;
  return createHash('sha256').update(codeVerifier, 'ascii').digest('base64url') === codeChallenge;
}
