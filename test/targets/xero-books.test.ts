import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { markersIn } from '../../src/targets/markers.js';
import { GRANULAR_SCOPES } from '../../src/targets/xero/index.js';
import { BooksyncProcess } from '../support/booksync-start.js';
import { freePort } from '../support/free-port.js';
import {
  crashThenEverythingTwice,
  issuedToken,
  revokeThenReconnect,
  rideOutStormAndOutage,
  type TargetBooksRun,
} from '../support/target-books-scenario.js';
import { markerTextOf, XeroDouble } from '../support/xero/double.js';

/** Four times the stack's longest wait between push attempts (PUSH_RETRY_MAX_INTERVAL, 5 s in these tests). */
const outageMs = 20_000;

// booksync's demo business day pushed by the real `booksync start` (ACCOUNTING_TARGET=xero) to the Xero test
// double, a stateful loopback Xero held to Xero's OpenAPI document (test/support/xero): the organisation is
// connected with `booksync targets connect xero` (the test plays the browser), access tokens die every 20 s so
// refreshes happen mid-run. The double's own account balances must equal the ledger through the account
// mapping, paid invoices show AmountDue 0, the returned check's invoice is owed again, and every ledger entry
// is one Xero document (a reversal: its original DELETED or VOIDED): through a SIGKILL between a create and
// its index write, every event delivered twice more, a 429 storm, an outage of several push attempts and a revoked connection,
// never more than 5 requests in flight or 60 a minute (counted by the double).

const double = new XeroDouble({ accessTokenTtlMs: 20_000, latencyMs: 2 });
const booksync = new BooksyncProcess();
let tenantId: string;
/** The consent address `booksync targets connect xero` printed last. */
let consentPage: URL | null = null;

/** Every booksync marker in the organisation, and the keys of the documents cancelled (DELETED / VOIDED). */
function markers(): { keys: string[]; cancelled: string[] } {
  const docs = double.booked(tenantId);
  const keys = docs.flatMap((doc) => markersIn(markerTextOf(doc)).map((m) => m.key));
  const cancelled = docs
    .filter((doc) => ['DELETED', 'VOIDED'].includes(String(doc.Status)))
    .flatMap((doc) => markersIn(markerTextOf(doc)).map((m) => m.key));
  return { keys, cancelled };
}

/** Exactly one Xero record per ledger entry (a reversal: its original cancelled): nothing lost, nothing twice. */
function expectOneXeroDocumentPerEntry(entries: BookedEntry[]): void {
  const { keys: marked, cancelled } = markers();
  expect(marked.sort()).toEqual(
    entries
      .filter((e) => !e.reverses)
      .map((e) => e.key)
      .sort(),
  );
  expect(cancelled.sort()).toEqual(entries.flatMap((e) => (e.reverses ? [e.reverses] : [])).sort());
  // A paid invoice shows AmountDue 0 (PAID); a returned check's invoice is owed again (AUTHORISED).
  const paid = double.all(tenantId, 'Invoices').filter((i) => i.Status === 'PAID');
  expect(paid.length).toBeGreaterThan(0);
  expect(paid.every((i) => i.AmountDue === 0)).toBe(true);
  expect(double.violations).toEqual([]);
  const stats = double.stats(tenantId);
  expect([stats.maxInFlight <= 5, stats.maxPerMinute <= 60, stats.breaches]).toEqual([true, true, []]);
}

const xero: TargetBooksRun = {
  booksync,
  consent: {
    target: 'xero',
    waiting: 'Waiting for Xero',
    address: /https?:\/\/\S+connect\/authorize\S*/,
    expectConsent(consent) {
      expect(consent.searchParams.get('client_id')).toBe(double.clientId);
      // Xero's granular scopes, which a new app (the double's) must ask: a broad one fails the consent.
      expect(consent.searchParams.get('scope')).toBe(GRANULAR_SCOPES);
      consentPage = consent;
    },
    // The double's consent page at the address the command printed, the organisation allowed.
    answer: (code, state) =>
      code === 'forged' ? { code: 'forged', state } : double.consent(consentPage as URL, tenantId),
    get connected() {
      return `connected to Xero organisation ${tenantId}`;
    },
  },
  books: {
    balanceOf: (code) => double.balanceOf(tenantId, code),
    // An invoice's AmountDue is what is still owed. (An amount changed later is a credit note or a charge
    // invoice of its own.)
    invoices: () =>
      double.all(tenantId, 'Invoices').map((inv) => ({
        keys: markersIn(markerTextOf(inv)).map((m) => m.key),
        dueCents: Math.round(Number(inv.AmountDue) * 100),
      })),
    expectOneDocumentPerEntry: expectOneXeroDocumentPerEntry,
  },
  creates: () => double.stats(tenantId).creates,
  maxInFlight: () => double.stats(tenantId).maxInFlight,
  inFlightLimit: 5,
  refreshGrants: () => double.refreshGrants,
};

beforeAll(async () => {
  await double.start();
  tenantId = double.createTenant('booksync e2e');
  await booksync.prepare({
    ACCOUNTING_TARGET: 'xero',
    XERO_CLIENT_ID: double.clientId,
    XERO_CLIENT_SECRET: double.clientSecret,
    XERO_TOKEN_KEY: 'e2e-secret-the-refresh-token-is-sealed-with',
    XERO_BASE_URL: double.url,
    XERO_TOKEN_URL: `${double.url}/connect/token`,
    XERO_CONSENT_URL: 'https://login.xero.com/identity/connect/authorize',
    XERO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/xero/callback`,
  });
}, 120_000);

afterAll(async () => {
  await booksync.stop('xero-books');
  await double.stop();
});

describe('the demo business day in Xero (the double)', { timeout: 900_000 }, () => {
  it('connects by consent, survives a SIGKILL between a create and its index write and every event twice more: one Xero document per entry', async () => {
    await crashThenEverythingTwice(xero, () => {
      // Secrets stay secret: no access or refresh token in booksync's logs, and the refresh token at rest is
      // sealed (the connection file holds the tenant and a v1.… sealed token, mode 0600).
      expect(booksync.output).not.toMatch(issuedToken);
      const file = path.join(booksync.dataDir, 'xero-connection.json');
      const saved = readFileSync(file, 'utf8');
      expect(saved).not.toMatch(issuedToken);
      expect(JSON.parse(saved)).toMatchObject({ tenantId, refreshToken: expect.stringMatching(/^v1\./) });
      expect(statSync(file).mode & 0o777).toBe(0o600);
    });
  });

  it('rides out a 429 storm and an outage of several push attempts while a business day goes on: nothing lost, nothing twice', async () => {
    await rideOutStormAndOutage(xero, outageMs, () => {
      double.throttle(40);
      double.outage(outageMs);
    });
  });

  it('a revoked connection stops the push with one flagged reason; reconnecting resumes it', async () => {
    await revokeThenReconnect(xero, () => double.revoke(tenantId));
  });
});
