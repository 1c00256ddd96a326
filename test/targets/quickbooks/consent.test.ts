import { describe, expect, it } from 'vitest';
import {
  consentUrl,
  newConsentState,
  parseConsentRedirect,
} from '../../../src/targets/quickbooks/consent.js';

describe('QuickBooks consent (booksync targets connect quickbooks)', () => {
  it('builds the consent URL and takes back the code and company of the matching redirect', () => {
    const state = newConsentState();
    const url = new URL(
      consentUrl({ clientId: 'abc', redirectUri: 'http://127.0.0.1:8765/callback', state }),
    );
    expect(url.origin + url.pathname).toBe('https://appcenter.intuit.com/connect/oauth2');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'abc',
      response_type: 'code',
      scope: 'com.intuit.quickbooks.accounting',
      redirect_uri: 'http://127.0.0.1:8765/callback',
      state,
    });
    const redirect = `http://127.0.0.1:8765/callback?code=AB11&state=${state}&realmId=9130350`;
    expect(parseConsentRedirect(redirect, state)).toEqual({ code: 'AB11', realmId: '9130350' });
  });

  it('refuses a redirect of another connect, a denied consent and a pasted fragment', () => {
    expect(() => parseConsentRedirect('http://127.0.0.1/cb?code=x&realmId=1&state=other', 'mine')).toThrow(
      /state differs/,
    );
    expect(() => parseConsentRedirect('http://127.0.0.1/cb?error=access_denied&state=mine', 'mine')).toThrow(
      /access_denied/,
    );
    expect(() => parseConsentRedirect('code=x', 'mine')).toThrow(/whole address/);
  });
});
