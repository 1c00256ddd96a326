import { randomBytes } from 'node:crypto';

// The consent half of `booksync targets connect <target>` (OAuth 2.0's authorization-code flow): the URL the
// operator opens, and the redirect the target sends back (to a loopback listener or pasted by hand), checked
// against the state booksync made so a forged redirect cannot connect someone else's company. The code then
// goes to the token store's connect().

export function newConsentState(): string {
  return randomBytes(16).toString('base64url');
}

export function authorizationUrl(options: {
  authorizeUrl: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
}): string {
  const url = new URL(options.authorizeUrl);
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', options.scope);
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('state', options.state);
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

/** The consent URL of a target's page, for `booksync targets connect <target>`. */
export function consentUrlOf(page: ConsentPage): (options: ConsentUrlOptions) => string {
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
