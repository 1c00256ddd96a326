import { ConsentError, consentUrlOf, newConsentState, parseRedirect } from '../oauth/consent.js';

// QuickBooks' consent for `booksync targets connect quickbooks` (the flow is ../oauth/consent.ts): Intuit's
// consent page and scope, and the company (realmId) its redirect carries.

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
