import { createHash, randomBytes } from 'node:crypto';

// The consent half of `booksync targets connect <target>` (OAuth 2.0's authorization-code flow): the URL the
// operator opens, and the redirect the target sends back (to a loopback listener or pasted by hand), checked
// against the state booksync made so a forged redirect cannot connect someone else's company. The code then
// goes to the token store's connect().
//
// Where the target documents PKCE (RFC 7636; Xero does), the consent URL also carries an S256 code_challenge
// and the code exchange its code_verifier: a code read off the redirect (a browser extension, a proxy's log, a
// shared screen) is worth nothing without the verifier, which only this connect's memory ever holds. It is
// made per connect, never written anywhere, never printed nor logged.

export function newConsentState(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * One PKCE pair of one connect (RFC 7636 §4.1–4.2): the verifier, 64 characters of base64url (48 random bytes,
 * within the RFC's 43–128 unreserved characters), and its S256 challenge. The verifier is a private field, so
 * neither JSON nor a logged object shows it; codeVerifier() hands it to the code exchange.
 */
export class ProofKey {
  readonly #verifier: string;
  readonly challenge: string;
  readonly method = 'S256';

  constructor(verifier = randomBytes(48).toString('base64url')) {
    if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier))
      throw new RangeError('a PKCE code verifier is 43 to 128 unreserved characters');
    this.#verifier = verifier;
    this.challenge = s256Challenge(verifier);
  }

  /** The code_verifier of the code exchange: for the token request only. */
  codeVerifier(): string {
    return this.#verifier;
  }

  toJSON(): { challenge: string; method: string } {
    return { challenge: this.challenge, method: this.method };
  }
}

/** BASE64URL(SHA256(ASCII(code_verifier))), RFC 7636 §4.2. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function authorizationUrl(options: {
  authorizeUrl: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  /** The connect's PKCE pair, for a target that documents PKCE: its S256 challenge goes on the URL. */
  proofKey?: ProofKey;
}): string {
  const url = new URL(options.authorizeUrl);
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', options.scope);
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('state', options.state);
  if (options.proofKey) {
    url.searchParams.set('code_challenge', options.proofKey.challenge);
    url.searchParams.set('code_challenge_method', options.proofKey.method);
  }
  return url.toString();
}

/** A target's consent page: where it is (unless the settings name another), and the scope booksync asks for. */
export interface ConsentPage {
  authorizeUrl: string;
  scope: string;
}

/** The consent URL of one connect: the app's client id, the redirect, this connect's state. */
export type ConsentUrlOptions = {
  clientId: string;
  redirectUri: string;
  state: string;
  /** Another consent page than the target's (a test double's). */
  authorizeUrl?: string;
};

/** The consent URL of a target's page, for `booksync targets connect <target>` (with PKCE where it has it). */
export function consentUrlOf(
  page: ConsentPage,
): (options: ConsentUrlOptions & { proofKey?: ProofKey }) => string {
  return (options) =>
    authorizationUrl({
      ...options,
      authorizeUrl: options.authorizeUrl ?? page.authorizeUrl,
      scope: page.scope,
    });
}

export class ConsentError extends Error {
  override readonly name = 'ConsentError';
}

/** The authorization code of the redirect, and its other parameters (QBO's realmId). */
export function parseRedirect(
  redirect: string,
  expectedState: string,
  label: string,
): { code: string; params: URLSearchParams } {
  let url: URL;
  try {
    url = new URL(redirect);
  } catch {
    throw new ConsentError(`not a URL: paste the whole address ${label} redirected to`);
  }
  const params = url.searchParams;
  const error = params.get('error');
  if (error) throw new ConsentError(`${label} did not connect: ${error}`);
  if (params.get('state') !== expectedState)
    throw new ConsentError('the redirect is not the answer to this connect (state differs)');
  const code = params.get('code');
  if (!code) throw new ConsentError('the redirect has no code');
  return { code, params };
}
