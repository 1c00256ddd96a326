import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { QuickBooksDouble, type RealmOptions } from '@booksync/vendor-doubles/quickbooks/double';
import { markerTextOf, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { expect } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import type { TargetSummary } from '../../src/flows/push/target-index.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import type { WriteOff } from '../../src/ledger/write-offs.js';
import { type LedgerStore, openLedgerStore } from '../../src/runtime/ledger-store.js';
import { markersIn } from '../../src/targets/markers.js';
import { quickBooksBooksyncChart, xeroBooksyncChart } from './booksync-charts.js';
import type { CliRun } from './booksync-cli.js';
import { BooksyncProcess } from './booksync-start.js';
import { freePort } from './free-port.js';
import { type ConsentPage, connectByConsent } from './target-books-scenario.js';
import { startTryton, type TrytonServer } from './tryton.js';
import { waitFor } from './wait-for.js';
import { shortMinute, shortMinuteLimits } from './xero/short-minute.js';

// ONE real `booksync start --no-demo` pushing to all three targets at once (ACCOUNTING_TARGET=tryton,quickbooks,
// xero): a real Tryton on PostgreSQL and the QuickBooks and Xero doubles, connected by consent as an operator
// connects them. Every entry must reach all three, so one stack checks each step against each target, and the
// expensive part (Tryton, its PostgreSQL, booksync's Temporal) starts once per file. Used by the combination
// suite (combinations.ts) and the bookkeeper's cases (test/e2e/bookkeeper-cases.test.ts). Waits poll the
// ledger and the target index in-process (a CLI run per poll would cost seconds of CPU).

export const allTargets = ['tryton', 'quickbooks', 'xero'] as const;

export interface ThreeTargetsOptions {
  /** Where the ledger lives: booksync's SQLite file, or a database in Tryton's PostgreSQL cluster. */
  ledger?: 'sqlite' | 'postgres';
  /** More settings of booksync (e.g. RETURNED_CHECK_FEE_CENTS). */
  env?: NodeJS.ProcessEnv;
  /** How the QuickBooks company is set up (e.g. automated sales tax switched on). */
  realm?: RealmOptions;
  /** Work run beside the consents, after the settings are written and before `booksync start`. */
  beside?: () => Promise<void>;
}

/**
 * A double's consent page for one of its companies: the consent must name the double's app, and the
 * redirect carries the code the double grants for `company` (plus `extra`, e.g. QuickBooks' realmId).
 */
function doubleConsentPage(
  double: { clientId: string; authorize(company: string): string },
  company: string,
  page: { target: ConsentPage['target']; label: string; address: RegExp; connected: string },
  extra: Record<string, string> = {},
): ConsentPage {
  return {
    target: page.target,
    waiting: `Waiting for ${page.label}`,
    address: page.address,
    connected: page.connected,
    expectConsent: (consent) => expect(consent.searchParams.get('client_id')).toBe(double.clientId),
    answer: (code, state) => ({
      code: code === 'forged' ? 'forged' : double.authorize(company),
      state,
      ...extra,
    }),
  };
}

/** QuickBooks' consent page as the double answers it for the company `realmId`. */
export function quickbooksConsentPage(qbo: QuickBooksDouble, realmId: string): ConsentPage {
  const connected = `connected to QuickBooks company ${realmId}`;
  const address = /https?:\/\/\S+connect\/oauth2\S*/;
  return doubleConsentPage(
    qbo,
    realmId,
    { target: 'quickbooks', label: 'QuickBooks', address, connected },
    { realmId },
  );
}

/**
 * Xero's consent page as the double answers it for the organisation `tenantId`: at the address the command
 * printed, so its PKCE challenge binds the code (the double's rule `pkce`).
 */
export function xeroConsentPage(xero: XeroDouble, tenantId: string): ConsentPage {
  const connected = `connected to Xero organisation ${tenantId}`;
  const address = /https?:\/\/\S+connect\/authorize\S*/;
  let printed: URL | null = null;
  const page = doubleConsentPage(
    { clientId: xero.clientId, authorize: () => xero.consent(printed as URL, tenantId).code as string },
    tenantId,
    { target: 'xero', label: 'Xero', address, connected },
  );
  return {
    ...page,
    expectConsent(consent) {
      page.expectConsent(consent);
      expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
      printed = consent;
    },
  };
}

/** booksync's settings of the three targets: Tryton's login, the doubles' apps and addresses. */
export async function threeTargetsSettings(
  tryton: TrytonServer,
  qbo: QuickBooksDouble,
  xero: XeroDouble,
  name: string,
): Promise<NodeJS.ProcessEnv> {
  return {
    TRYTON_URL: tryton.url,
    TRYTON_DATABASE: tryton.database,
    TRYTON_USER: tryton.username,
    TRYTON_PASSWORD: tryton.password,
    QBO_CLIENT_ID: qbo.clientId,
    QBO_CLIENT_SECRET: qbo.clientSecret,
    QBO_TOKEN_KEY: `${name}-the-refresh-token-is-sealed-with`,
    QBO_BASE_URL: qbo.url,
    QBO_OAUTH_URL: qbo.url,
    QBO_CONSENT_URL: 'https://appcenter.intuit.com/connect/oauth2',
    QBO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/quickbooks/callback`,
    XERO_CLIENT_ID: xero.clientId,
    XERO_CLIENT_SECRET: xero.clientSecret,
    XERO_TOKEN_KEY: `${name}-the-refresh-token-is-sealed-with`,
    XERO_BASE_URL: xero.url,
    XERO_TOKEN_URL: `${xero.url}/connect/token`,
    XERO_RATE_WINDOW: shortMinute.setting,
    XERO_CONSENT_URL: 'https://login.xero.com/identity/connect/authorize',
    XERO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/xero/callback`,
  };
}

/** The QBO entities booksync writes, where its markers are looked for. */
export const quickbooksEntities = [
  'Invoice',
  'Payment',
  'Deposit',
  'JournalEntry',
  'RefundReceipt',
  'CreditMemo',
  'SalesReceipt',
  'Bill',
  'BillPayment',
];

export class ThreeTargets {
  readonly qbo = new QuickBooksDouble({ latencyMs: 1 });
  readonly xero = new XeroDouble({ latencyMs: 1, limits: shortMinuteLimits });
  readonly booksync = new BooksyncProcess();
  readonly adminToken = `admin-${Math.random().toString(36).slice(2)}-three-targets`;
  readonly zone = 'UTC';
  tryton!: TrytonServer;
  realmId = '';
  tenantId = '';
  store!: LedgerStore;
  private readonly began = Date.now();

  readonly name: string;
  /** `name` names the lap lines and the stack's log in test/.artifacts. */
  constructor(name: string) {
    this.name = name;
  }

  lap(what: string): void {
    console.log(`[${this.name}] ${what} at ${((Date.now() - this.began) / 1000).toFixed(1)} s`);
  }

  get quickbooksConsent(): ConsentPage {
    return quickbooksConsentPage(this.qbo, this.realmId);
  }

  get xeroConsent(): ConsentPage {
    return xeroConsentPage(this.xero, this.tenantId);
  }

  apiKey(): string {
    return (
      JSON.parse(readFileSync(path.join(this.booksync.dataDir, 'embedded-credentials.json'), 'utf8')) as {
        apiKey: string;
      }
    ).apiKey;
  }

  /** The emulator's sandbox routes as the business's key, with the admin token (the clock moves). */
  sandbox(): SandboxClient {
    return new SandboxClient({
      baseUrl: `http://127.0.0.1:${this.booksync.env.EMULATOR_PORT}`,
      apiKey: this.apiKey(),
      adminToken: this.adminToken,
    });
  }

  /**
   * Tryton (its PostgreSQL, the restored template database, trytond) is the slow part: the doubles start
   * meanwhile; then both consents (beside `options.beside`) and `booksync start --no-demo`.
   */
  async up(options: ThreeTargetsOptions = {}): Promise<void> {
    const { qbo, xero, booksync } = this;
    [this.tryton] = await Promise.all([startTryton(), qbo.start(), xero.start()]);
    // booksync's accounts already in place: the suites on this stack are about what three targets book
    // together, not set-up (test/targets/quickbooks-books.test.ts and xero-books.test.ts go through it).
    this.realmId = qbo.createRealm(undefined, { chart: quickBooksBooksyncChart, ...options.realm });
    this.tenantId = xero.createTenant(`booksync ${this.name}`, { chart: xeroBooksyncChart });
    const tryton = this.tryton;
    const ledgerUrl = options.ledger === 'postgres' ? await tryton.postgres.createDatabase('books') : null;
    await booksync.prepare({
      ACCOUNTING_TARGET: allTargets.join(','),
      BOOKS_TIME_ZONE: this.zone,
      EMULATOR_ADMIN_TOKEN: this.adminToken,
      ...(ledgerUrl ? { LEDGER_URL: ledgerUrl } : {}),
      ...(await threeTargetsSettings(tryton, qbo, xero, this.name)),
      ...options.env,
    });
    this.lap('Tryton and the doubles up');
    await Promise.all([
      // One after the other: on PostgreSQL both would first set up the same table of connections.
      connectByConsent(booksync, this.quickbooksConsent).then(() =>
        connectByConsent(booksync, this.xeroConsent),
      ),
      options.beside?.(),
    ]);
    this.lap('both connected');
    booksync.start({}, ['--no-demo']);
    await booksync.untilOutput('Ctrl-C stops everything.', 0, 300_000);
    this.lap('booksync start up');
    this.store = await openLedgerStore(loadSettings(booksync.env));
  }

  async down(): Promise<void> {
    await this.store?.close();
    await this.booksync.stop(this.name);
    await Promise.all([this.qbo.stop(), this.xero.stop(), this.tryton?.close()]);
    this.lap('stopped');
  }

  /** A CLI run that must exit with `code`; its output is the assertion's message. */
  async cli(args: string[], code = 0, extra: NodeJS.ProcessEnv = {}): Promise<CliRun> {
    const run = await this.booksync.cli(args, extra);
    expect(run.code, `booksync ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(code);
    return run;
  }

  entries(): Promise<BookedEntry[]> {
    return this.store.ledger.allEntries();
  }

  /** The link's write-offs as the ledger's store keeps them. */
  writeOffsFor(paymentLinkId: string): Promise<WriteOff[]> {
    return this.store.ledger.writeOffsFor(paymentLinkId);
  }

  /** Until the ledger holds entries the predicate picks; answers them. */
  untilBooked(what: string, pick: (e: BookedEntry) => boolean, ms = 120_000): Promise<BookedEntry[]> {
    return waitFor(
      `booked: ${what}`,
      async () => {
        const found = (await this.entries()).filter(pick);
        return found.length > 0 ? found : undefined;
      },
      ms,
      250,
    );
  }

  /**
   * Until every target took every entry: nothing PENDING, nothing FAILED, as many pushed or skipped as the
   * ledger holds entries. Read from the target index in-process.
   */
  async untilAllPushed(ms = 180_000): Promise<TargetSummary[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const summaries = await Promise.all(allTargets.map((t) => this.store.targetIndex.summary(t)));
      if (summaries.every((s) => s.pending === 0)) {
        const count = (await this.entries()).length;
        // An entry booked between the summaries and the count is still on its way: look again.
        if (summaries.every((s) => s.pushed + s.skipped + s.failed >= count) || Date.now() > deadline) {
          expect(
            summaries.map((t) => [t.target, t.pending, t.failed, t.pushed + t.skipped, t.failures]),
          ).toEqual(allTargets.map((t) => [t, 0, 0, count, []]));
          return summaries;
        }
      }
      if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(summaries)}`);
      await sleep(300);
    }
  }

  /** The keys are PUSHED in each target's index, and each target holds a document carrying the key. */
  async expectAtEveryTarget(keys: readonly string[]): Promise<void> {
    const { qbo, xero, realmId, tenantId, tryton, store } = this;
    expect(keys.length).toBeGreaterThan(0);
    for (const target of allTargets) {
      const states = await Promise.all(keys.map((k) => store.targetIndex.get(target, k)));
      expect(states.map((s, i) => [target, keys[i], s?.status])).toEqual(
        keys.map((k) => [target, k, 'PUSHED']),
      );
    }
    const qboKeys = new Set(
      quickbooksEntities.flatMap((entity) =>
        qbo.all(realmId, entity).flatMap((doc) => markersIn(doc.PrivateNote).map((m) => m.key)),
      ),
    );
    const xeroKeys = new Set(
      xero.booked(tenantId).flatMap((doc) => markersIn(markerTextOf(doc)).map((m) => m.key)),
    );
    const trytonKeys = new Set<string>();
    for (const model of ['account.move', 'account.invoice']) {
      const rows = await tryton.rpc.searchRead<{ description: string | null }>(
        model,
        [['description', 'like', 'booksync:%']],
        ['description'],
      );
      for (const r of rows)
        trytonKeys.add((r.description ?? '').slice('booksync:'.length).split(' ')[0] ?? '');
    }
    expect(keys.map((k) => [k, qboKeys.has(k), xeroKeys.has(k), trytonKeys.has(k)])).toEqual(
      keys.map((k) => [k, true, true, true]),
    );
  }
}
