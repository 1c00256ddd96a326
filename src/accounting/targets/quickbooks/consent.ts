import { randomBytes } from 'node:crypto';

// The consent half of `booksync targets connect quickbooks`: the URL the operator opens, and the redirect
// QBO sends back (to a loopback listener or pasted by hand), checked against the state booksync made so a
// forged redirect cannot connect someone else's company. The code then goes to OAuthTokenStore.connect.

export const AUTHORIZE_URL = 'https://appcenter.intuit.com/connect/oauth2';
export const ACCOUNTING_SCOPE = 'com.intuit.quickbooks.accounting';

export function newConsentState(): string {
  return randomBytes(16).toString('base64url');
}

export function consentUrl(options: {
  clientId: string;
  redirectUri: string;
  state: string;
  authorizeUrl?: string;
}): string {
  const url = new URL(options.authorizeUrl ?? AUTHORIZE_URL);
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', ACCOUNTING_SCOPE);
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('state', options.state);
  return url.toString();
}

export class ConsentError extends Error {
  override readonly name = 'ConsentError';
}

/** The authorization code and company (realmId) of QBO's redirect. */
export function parseConsentRedirect(
  redirect: string,
  expectedState: string,
): { code: string; realmId: string } {
  let url: URL;
  try {
    url = new URL(redirect);
  } catch {
    throw new ConsentError('not a URL: paste the whole address QuickBooks redirected to');
  }
  const params = url.searchParams;
  const error = params.get('error');
  if (error) throw new ConsentError(`QuickBooks did not connect: ${error}`);
  if (params.get('state') !== expectedState)
    throw new ConsentError('the redirect is not the answer to this connect (state differs)');
  const code = params.get('code');
  const realmId = params.get('realmId');
  if (!code || !realmId) throw new ConsentError('the redirect has no code or realmId');
  return { code, realmId };
}
