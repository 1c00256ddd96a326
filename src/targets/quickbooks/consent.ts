import { ConsentError, consentUrlOf, newConsentState, parseRedirect } from '../oauth/consent.js';

// QuickBooks' consent for `booksync targets connect quickbooks` (the flow is ../oauth/consent.ts): Intuit's
// consent page and scope, and the company (realmId) its redirect carries.
//
// No PKCE here: Intuit's OAuth 2.0 page for the QuickBooks Online Accounting API
// (https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0)
// lists the authorize parameters (client_id, scope, redirect_uri, response_type, state) and the code exchange's
// (grant_type, code, redirect_uri, with the app's Basic credentials) and documents no code_challenge. A
// challenge Intuit ignores would protect nothing while reading as if it did; the state check and the app's
// secret at the token endpoint are what guard QuickBooks' consent. Should Intuit document PKCE, the Xero side
// (a ProofKey per connect on consentUrl and connect()) is the way.

export { ConsentError, newConsentState };

export const AUTHORIZE_URL = 'https://appcenter.intuit.com/connect/oauth2';
export const ACCOUNTING_SCOPE = 'com.intuit.quickbooks.accounting';

export const consentUrl = consentUrlOf({ authorizeUrl: AUTHORIZE_URL, scope: ACCOUNTING_SCOPE });

/** The authorization code and company (realmId) of QBO's redirect. */
export function parseConsentRedirect(
  redirect: string,
  expectedState: string,
): { code: string; realmId: string } {
  const { code, params } = parseRedirect(redirect, expectedState, 'QuickBooks');
  const realmId = params.get('realmId');
  if (!realmId) throw new ConsentError('the redirect has no code or realmId');
  return { code, realmId };
}
