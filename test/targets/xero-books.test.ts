import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { markerTextOf, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { markersIn } from '../../src/targets/markers.js';
import { GRANULAR_SCOPES } from '../../src/targets/xero/index.js';
import { BooksyncProcess } from '../support/booksync-start.js';
import { freePort } from '../support/free-port.js';
import {
  type ConsentPage,
  crashThenEverythingTwice,
  freshCompanyToClosedMonth,
  issuedToken,
  revokeThenReconnect,
  rideOutStormAndOutage,
  type TargetBooksRun,
  type TargetChart,
} from '../support/target-books-scenario.js';
import { shortMinute, shortMinuteLimits } from '../support/xero/short-minute.js';

/** Four times the stack's longest wait between push attempts (PUSH_RETRY_MAX_INTERVAL, 5 s in these tests). */
const outageMs = 20_000;

// booksync's demo business day pushed by the real `booksync start` (ACCOUNTING_TARGET=xero) to the Xero test
// double, a stateful loopback Xero held to Xero's OpenAPI document (test/support/xero): the organisation
// starts as Xero's demo company (its chart with Xero's codes, its BANK accounts, its tax rates, none of
// booksync's accounts), is connected with `booksync targets connect xero` (the test plays the browser) and set
// up with `booksync targets setup xero --apply`; access tokens die every 20 s so refreshes happen mid-run. The double's own account balances must equal the ledger through the account
// mapping, paid invoices show AmountDue 0, the returned check's invoice is owed again, and every ledger entry
// is one Xero document (a reversal: its original DELETED or VOIDED): through a SIGKILL between a create and
// its index write, every event delivered twice more, a 429 storm, an outage of several push attempts and a revoked connection,
// never more than 5 requests in flight or 60 a minute (counted by the double).

const double = new XeroDouble({ accessTokenTtlMs: 20_000, latencyMs: 2, limits: shortMinuteLimits });
const booksync = new BooksyncProcess();
let tenantId: string;
/** The consent address `booksync targets connect xero` printed last. */
let consentAddress: URL | null = null;
/** The newcomer's own booksync and organisation (the last test). */
const newcomer = new BooksyncProcess();
let newcomerTenantId: string;
const newcomerAdminToken = `admin-${Math.random().toString(36).slice(2)}-xero-newcomer`;

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

/** `booksync targets connect xero`'s consent page, the organisation `organisation()` allowed. */
function consentPage(organisation: () => string): ConsentPage {
  return {
    target: 'xero',
    waiting: 'Waiting for Xero',
    address: /https?:\/\/\S+connect\/authorize\S*/,
    expectConsent(consent) {
      expect(consent.searchParams.get('client_id')).toBe(double.clientId);
      // Xero's granular scopes, which a new app (the double's) must ask: a broad one fails the consent.
      // booksync's default scopes: granular, accounting.settings among them for `targets setup --apply`.
      expect(consent.searchParams.get('scope')).toBe(GRANULAR_SCOPES);
      consentAddress = consent;
    },
    // The double's consent page at the address the command printed, the organisation allowed.
    answer: (code, state) =>
      code === 'forged' ? { code: 'forged', state } : double.consent(consentAddress as URL, organisation()),
    get connected() {
      return `connected to Xero organisation ${organisation()}`;
    },
  };
}

/** The organisation's chart as set-up changes it. */
function chartOf(organisation: () => string): TargetChart {
  return { accounts: () => double.all(organisation(), 'Accounts').length };
}

const xero: TargetBooksRun = {
  booksync,
  consent: consentPage(() => tenantId),
  chart: chartOf(() => tenantId),
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

/** An organisation as Xero's demo company starts (the double's default): none of booksync's accounts. */
function demoOrganisation(name: string): string {
  const organisation = double.createTenant(name);
  const chart = double.all(organisation, 'Accounts');
  expect(chart.filter((a) => a.Type === 'BANK').length).toBeGreaterThan(0);
  expect(chart.filter((a) => a.Code === defaultAccountCodes.OperatingBank)).toEqual([]);
  return organisation;
}

const settings = async (): Promise<NodeJS.ProcessEnv> => ({
  ACCOUNTING_TARGET: 'xero',
  XERO_CLIENT_ID: double.clientId,
  XERO_CLIENT_SECRET: double.clientSecret,
  XERO_TOKEN_KEY: 'e2e-secret-the-refresh-token-is-sealed-with',
  XERO_BASE_URL: double.url,
  XERO_TOKEN_URL: `${double.url}/connect/token`,
  XERO_RATE_WINDOW: shortMinute.setting,
  XERO_CONSENT_URL: 'https://login.xero.com/identity/connect/authorize',
  XERO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/xero/callback`,
});

beforeAll(async () => {
  await double.start();
  tenantId = demoOrganisation('booksync e2e');
  await booksync.prepare(await settings());
}, 120_000);

afterAll(async () => {
  await booksync.stop('xero-books');
  await newcomer.stop('xero-books-newcomer');
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

  it("a newcomer's way: Xero's demo company, connect, set up, `booksync start` books the demo day and closes its month, the certificate passing on Xero's own reports", async () => {
    // Whatever an earlier test left at the double (a storm cut short) is no part of this one.
    double.calm();
    newcomerTenantId = demoOrganisation('booksync newcomer');
    await newcomer.prepare({
      ...(await settings()),
      // As a newcomer's `npm start`: the demo's day, then its month closed (the emulator's clock moved).
      DEMO_CLOSES_MONTH: 'true',
      EMULATOR_ADMIN_TOKEN: newcomerAdminToken,
    });
    await freshCompanyToClosedMonth(newcomer, {
      consent: consentPage(() => newcomerTenantId),
      chart: chartOf(() => newcomerTenantId),
      expectReportsRead() {
        const read = double.requests
          .filter((r) => r.tenantId === newcomerTenantId && r.method === 'GET')
          .map((r) => /\/Reports\/(\w+)/.exec(r.url)?.[1])
          .filter((name) => name !== undefined);
        expect([...new Set(read)]).toEqual(
          expect.arrayContaining(['TrialBalance', 'AgedReceivablesByContact']),
        );
      },
    });
    expect(double.violations).toEqual([]);
  });
});
