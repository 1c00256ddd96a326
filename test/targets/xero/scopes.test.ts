import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetDisconnectedError } from '../../../src/targets/errors.js';
import { newConsentState } from '../../../src/targets/oauth/consent.js';
import { RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import {
  BROAD_SCOPES,
  consentUrl,
  GRANULAR_SCOPES,
  ProofKey,
  parseConsentRedirect,
  XeroTarget,
  XeroTokenStore,
  xeroScopes,
} from '../../../src/targets/xero/index.js';
import { xeroBooksyncChart } from '../../support/booksync-charts.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { SealedTokenInMemory } from '../../support/sealed-token-in-memory.js';
import { documentsForContract } from '../target-contract.js';

// Xero's scopes (packages/vendor-doubles/src/xero/README.md, "Scopes"): an app created on or after 2 March 2026 may ask only
// Xero's granular scopes, a broad one fails the consent with invalid_scope (https://developer.xero.com/faq/
// granular-scopes; Apideck's help, "Xero: Connecting a new app (created after March 2, 2026)"); older apps may
// still ask the broad ones. Each call is refused, 401 AuthorizationUnsuccessful, to a token without its scope
// (https://stackoverflow.com/questions/61047303, answered by a Xero engineer).

const limits = { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 };
const newApp = doubleForFile(new XeroDouble({ limits, appCreatedOn: '2026-06-01' }));
const olderApp = doubleForFile(new XeroDouble({ limits, appCreatedOn: '2025-09-01' }));
const cipher = new TokenCipher('test-secret-for-xero-scopes');
// booksync's accounts already in place: these tests are about the scopes each call needs, not set-up.
const booksyncChart = { chart: xeroBooksyncChart } as const;
const redirectUri = 'http://127.0.0.1:8766/xero/callback';

/** `booksync targets connect xero`'s consent at the double: the redirect's code and its verifier, or Xero's refusal. */
function consentAt(double: XeroDouble, tenantId: string, scope: string) {
  const state = newConsentState();
  const proofKey = new ProofKey();
  const url = consentUrl({ clientId: double.clientId, redirectUri, state, scope, proofKey });
  const redirect = `${redirectUri}?${new URLSearchParams(double.consent(url, tenantId))}`;
  return () => ({ code: parseConsentRedirect(redirect, state).code, codeVerifier: proofKey.codeVerifier() });
}

/** The adapter on a connection made by a consent's code, or on a refresh token the double handed out. */
async function connected(
  double: XeroDouble,
  tenantId: string,
  code: { code: string; codeVerifier: string } | { refreshToken: string },
) {
  const storage = new SealedTokenInMemory('refreshToken' in code ? cipher.seal(code.refreshToken) : null);
  const tokenStore = new XeroTokenStore({
    tokenUrl: `${double.url}/connect/token`,
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    storage,
    cipher,
  });
  if ('code' in code) await tokenStore.connect(code.code, redirectUri, code.codeVerifier);
  const target = new XeroTarget({
    baseUrl: double.url,
    tenantId,
    tokenStore,
    accounts: defaultAccountCodes,
    matching: 'create',
    limiter: new RealmLimiter({ perMinute: 60, concurrent: 5, windowMs: 1_000, marginMs: 50 }),
  });
  return { target, tokenStore };
}

describe('Xero scopes at consent (granular-scopes)', () => {
  it('a new app connects with booksync’s default granular scopes, and pushes and reads the certificate’s reports with them', async () => {
    const scope = xeroScopes({ XERO_BROAD_SCOPES: false });
    expect(scope).toBe(GRANULAR_SCOPES);
    const tenantId = newApp.createTenant(undefined, booksyncChart);
    const { target } = await connected(newApp, tenantId, consentAt(newApp, tenantId, scope)());
    await target.verify();
    const docs = documentsForContract();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [docs.invoice, docs.payment, docs.reversal])
      pushed.set(doc.key, await target.push(doc, context));
    // Trial Balance and aged receivables, read for the close certificate.
    const figures = await target.figuresAsOf('2026-11-30');
    expect(figures.openInvoices[docs.invoice.invoice?.paymentLinkId ?? '']).toBe(120_00);
  });

  it('a new app asking the broad scopes is refused with invalid_scope; an app created before 2 March 2026 may ask them', async () => {
    const broad = xeroScopes({ XERO_BROAD_SCOPES: true });
    expect(broad).toBe(BROAD_SCOPES);
    expect(consentAt(newApp, newApp.createTenant(), broad)).toThrow(/Xero did not connect: invalid_scope/);
    // booksync's scopes before granular ones: refused too.
    const before = 'offline_access accounting.transactions accounting.contacts accounting.settings.read';
    expect(consentAt(newApp, newApp.createTenant(), before)).toThrow(/invalid_scope/);

    const tenantId = olderApp.createTenant(undefined, booksyncChart);
    const { target } = await connected(olderApp, tenantId, consentAt(olderApp, tenantId, broad)());
    const docs = documentsForContract();
    const { context } = pushIndex();
    await expect(target.push(docs.invoice, context)).resolves.toMatchObject({ created: true });
    await expect(target.figuresAsOf('2026-11-30')).resolves.toBeDefined();
  });

  it('XERO_SCOPES is asked as given, offline_access always with it', () => {
    expect(
      xeroScopes({ XERO_SCOPES: 'accounting.invoices  accounting.contacts', XERO_BROAD_SCOPES: true }),
    ).toBe('offline_access accounting.invoices accounting.contacts');
  });
});

describe('Xero scopes per call (operation-scope)', () => {
  it('a token without accounting.payments may read payments with .read but not create one: 401 AuthorizationUnsuccessful; the adapter asks for a new consent and refreshes no token for it', async () => {
    const tenantId = newApp.createTenant(undefined, booksyncChart);
    const scopes = GRANULAR_SCOPES.split(' ')
      .filter((s) => s !== 'accounting.payments')
      .concat('accounting.payments.read');
    const refreshToken = newApp.connectWith([tenantId], scopes);
    const { target, tokenStore } = await connected(newApp, tenantId, { refreshToken });
    const docs = documentsForContract();
    const { pushed, context } = pushIndex();
    pushed.set(docs.invoice.key, await target.push(docs.invoice, context));
    await expect(target.client.call('getPayments', (api, t) => api.getPayments(t))).resolves.toBeDefined();

    const direct = await fetch(`${newApp.url}/api.xro/2.0/Payments`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${await tokenStore.accessToken()}`,
        'xero-tenant-id': tenantId,
        'idempotency-key': `scopes-${Date.now()}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ Payments: [] }),
    });
    expect(direct.status).toBe(401);
    expect(await direct.json()).toMatchObject({ Title: 'Unauthorized', Detail: 'AuthorizationUnsuccessful' });

    const refreshes = newApp.refreshGrants;
    const refused = await target.push(docs.payment, context).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TargetDisconnectedError);
    expect((refused as Error).message).toMatch(/scope.*booksync targets connect xero/);
    expect(newApp.refreshGrants).toBe(refreshes);
    expect(newApp.all(tenantId, 'Payments')).toEqual([]);
  });

  it('booksync’s scopes before granular ones (no reports scope) push, but the certificate’s Trial Balance is refused', async () => {
    const tenantId = olderApp.createTenant(undefined, booksyncChart);
    const before = 'offline_access accounting.transactions accounting.contacts accounting.settings.read';
    const { target } = await connected(olderApp, tenantId, {
      refreshToken: olderApp.connectWith([tenantId], before.split(' ')),
    });
    const docs = documentsForContract();
    await expect(target.push(docs.invoice, pushIndex().context)).resolves.toMatchObject({ created: true });
    await expect(target.figuresAsOf('2026-11-30')).rejects.toBeInstanceOf(TargetDisconnectedError);
  });
});
