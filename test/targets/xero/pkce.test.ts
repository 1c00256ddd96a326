import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { newConsentState, s256Challenge } from '../../../src/targets/oauth/consent.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { ReconnectRequired } from '../../../src/targets/oauth/token-store.js';
import {
  consentUrl,
  GRANULAR_SCOPES,
  ProofKey,
  parseConsentRedirect,
  XeroTokenStore,
} from '../../../src/targets/xero/index.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { SealedTokenInMemory } from '../../support/sealed-token-in-memory.js';

// PKCE in Xero's consent (packages/vendor-doubles/src/xero/README.md, rule `pkce`): Xero documents the S256 code_challenge on
// the authorize URL and the code_verifier on the code exchange (https://developer.xero.com/documentation/
// oauth2/pkce-flow). booksync's consent carries a challenge and its connect sends the verifier; the double
// refuses the code of such a consent, invalid_grant, to an exchange without the verifier or with another.

const double = doubleForFile(new XeroDouble());
const cipher = new TokenCipher('test-secret-for-xero-pkce');
const redirectUri = 'http://127.0.0.1:8767/xero/callback';

/** `booksync targets connect xero`'s consent at the double, the organisation allowed: the consent URL and code. */
function consentAt(tenantId: string, proofKey: ProofKey): { url: URL; code: string } {
  const state = newConsentState();
  const url = new URL(
    consentUrl({ clientId: double.clientId, redirectUri, state, scope: GRANULAR_SCOPES, proofKey }),
  );
  const redirect = `${redirectUri}?${new URLSearchParams(double.consent(url, tenantId))}`;
  return { url, code: parseConsentRedirect(redirect, state).code };
}

function tokenStore(storage = new SealedTokenInMemory(null)): XeroTokenStore {
  return new XeroTokenStore({
    tokenUrl: `${double.url}/connect/token`,
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    storage,
    cipher,
  });
}

describe('PKCE in Xero consent (pkce)', () => {
  it('booksync’s consent carries the S256 challenge of a fresh 43–128 character verifier, and its connect exchanges the code with it', async () => {
    const proofKey = new ProofKey();
    const verifier = proofKey.codeVerifier();
    expect(verifier).toMatch(/^[A-Za-z0-9\-._~]{43,128}$/);
    expect(new ProofKey().codeVerifier()).not.toBe(verifier);
    const tenantId = double.createTenant();
    const { url, code } = consentAt(tenantId, proofKey);
    expect(url.searchParams.get('code_challenge')).toBe(s256Challenge(verifier));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    // The verifier goes nowhere but the token request: not on the URL, not in the pair's JSON.
    expect(url.toString()).not.toContain(verifier);
    expect(JSON.stringify({ proofKey })).not.toContain(verifier);

    const storage = new SealedTokenInMemory(null);
    const accessToken = await tokenStore(storage).connect(code, redirectUri, proofKey.codeVerifier());
    expect(accessToken).toMatch(/^at-/);
    expect(storage.sealed).not.toBeNull();
  });

  it('the code of a consent with a challenge is refused, invalid_grant, when its exchange has no verifier or another one', async () => {
    const tenantId = double.createTenant();
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => 'exchanged',
        (error: unknown) => (error instanceof ReconnectRequired ? error.oauthError : String(error)),
      );

    const missing = consentAt(tenantId, new ProofKey());
    expect(await refusal(tokenStore().connect(missing.code, redirectUri))).toBe('invalid_grant');

    const wrong = consentAt(tenantId, new ProofKey());
    const another = new ProofKey().codeVerifier();
    expect(await refusal(tokenStore().connect(wrong.code, redirectUri, another))).toBe('invalid_grant');

    // A refused exchange spends the code: the right verifier afterwards is too late.
    const proofKey = new ProofKey();
    const spent = consentAt(tenantId, proofKey);
    expect(await refusal(tokenStore().connect(spent.code, redirectUri))).toBe('invalid_grant');
    expect(await refusal(tokenStore().connect(spent.code, redirectUri, proofKey.codeVerifier()))).toBe(
      'invalid_grant',
    );
  });

  it('a challenge of another method than S256 is refused at consent (invalid_request)', () => {
    const url = new URL(
      consentUrl({
        clientId: double.clientId,
        redirectUri,
        state: newConsentState(),
        scope: GRANULAR_SCOPES,
        proofKey: new ProofKey(),
      }),
    );
    url.searchParams.set('code_challenge_method', 'plain');
    expect(double.consent(url, double.createTenant())).toMatchObject({ error: 'invalid_request' });
  });
});
