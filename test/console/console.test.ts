import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleOptions } from '../../src/console/options.js';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress } from '../../src/ingress/server.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { disbursementEntries } from '../../src/ledger/mapping/disbursement.js';
import { OAuthConnectionFile } from '../../src/targets/oauth/connection-file.js';
import { twoLine } from '../ledger/fixtures.js';
import { consoleTemporalFake, hostileReferences, type RecordedSignal } from './console-fakes.js';
import { cookieOf, form, formHeaders, session as signedInSession, signIn } from './console-inject.js';

// The console through inject on the real ingress app: sign-in and its cookie, 401 and the browser's redirect,
// CSRF on every POST, the read-only role, the audit log, and escaping of everything it shows.

const apiKey = 'console-test-command-key-0123456789';
const password = 'correct horse battery staple';
const readonlyPassword = 'reader-only-password';
const apps: IngressApp[] = [];
let ledger: EmbeddedLedger;
let index: SqliteTargetIndex;
let signals: RecordedSignal[];
let app: IngressApp;

function consoleApp(
  overrides: Partial<ConsoleOptions> = {},
  temporal = consoleTemporalFake(),
): { app: IngressApp; signals: RecordedSignal[] } {
  const created = createIngress({
    temporalClient: temporal.client,
    taskQueue: 'console-test',
    webhookSecrets: ['whsec_console_test'],
    commandApiKey: apiKey,
    console: {
      ledger,
      targetIndex: index,
      targets: ['ledger-mirror'],
      credentials: { password, readonlyPassword },
      timeZone: 'UTC',
      secureCookie: false,
      references: hostileReferences,
      now: () => new Date('2026-03-15T12:00:00Z'),
      ...overrides,
    },
  });
  apps.push(created);
  return { app: created, signals: temporal.signals };
}

beforeAll(async () => {
  ledger = EmbeddedLedger.open();
  index = new SqliteTargetIndex(ledger.database);
  // An invoice from January (73 days before 15 March), half paid; a bill from March.
  await ledger.post(
    twoLine('invoice:pl_1', 100_000, {
      date: '2026-01-01',
      debit: Accounts.AccountsReceivable,
      credit: Accounts.Revenue,
      links: { paymentLinkId: 'pl_1', customerId: 'cus_evil' },
    }),
  );
  await ledger.post(
    twoLine('payment:pay_1', 40_000, {
      date: '2026-02-01',
      links: { paymentLinkId: 'pl_1', customerId: 'cus_evil', paymentId: 'pay_1' },
    }),
  );
  await ledger.post(
    twoLine('bill:bill_1', 25_000, {
      date: '2026-03-10',
      debit: Accounts.BillExpenses,
      credit: Accounts.AccountsPayable,
      links: { billId: 'bill_1', vendorId: 'ven_1' },
    }),
  );
  const payment = await ledger.get('payment:pay_1');
  await index.record(
    'ledger-mirror',
    { id: payment!.id, key: payment!.key, contentHash: payment!.contentHash },
    { status: 'FAILED', reason: 'account <img src=x onerror=alert(1)> does not exist' },
  );
  ({ app, signals } = consoleApp());
});

const scratch = mkdtempSync(path.join(tmpdir(), 'booksync-console-test-'));
const otherLedgers: EmbeddedLedger[] = [];

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  ledger?.close();
  for (const other of otherLedgers) other.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A ledger of its own holding the given payouts (each as the workflows book it). */
async function ledgerWithPayouts(
  payouts: { id: string; cents: number; sent: string; paid?: string; failedOn?: string }[],
): Promise<EmbeddedLedger> {
  const books = EmbeddedLedger.open();
  otherLedgers.push(books);
  for (const p of payouts) {
    await books.postMany(
      disbursementEntries({
        id: p.id,
        status: p.paid ? 'SUCCEEDED' : 'PENDING',
        amountInCents: p.cents,
        createdAt: p.sent,
        paidAt: p.paid ?? null,
      }),
    );
    if (p.failedOn)
      await books.reverse(`disbursement-pending:${p.id}`, { reason: 'payout failed', date: p.failedOn });
  }
  return books;
}

/** A signed-in session, as the bookkeeper unless told. */
const session = (target: IngressApp, secret = password, account = 'bookkeeper') =>
  signedInSession(target, secret, account);

describe('signing in', () => {
  it('answers 401 to an API-style request without a session, and sends a browser to sign in', async () => {
    const api = await app.inject({ method: 'GET', url: '/console', headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toEqual({ error: expect.stringContaining('sign in'), code: 'unauthorized' });
    const bare = await app.inject({ method: 'GET', url: '/console/receivables' });
    expect(bare.statusCode).toBe(401);
    const post = await app.inject({
      method: 'POST',
      url: '/console/sync-errors/retry',
      headers: formHeaders(),
      payload: form({ target: 'ledger-mirror' }),
    });
    expect(post.statusCode).toBe(401);
    const browser = await app.inject({
      method: 'GET',
      url: '/console/close',
      headers: { accept: 'text/html' },
    });
    expect(browser.statusCode).toBe(303);
    expect(browser.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Fclose');
  });

  it('gives a session cookie that is HttpOnly, SameSite=Strict, for /console, Secure outside loopback', async () => {
    const signedIn = await signIn(app, password);
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/console/sync-errors');
    const cookie = cookieOf(signedIn.headers['set-cookie'], 'booksync_console');
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/console/);
    expect(cookie).not.toMatch(/Secure/);
    const secure = consoleApp({ secureCookie: true }).app;
    const overTls = await signIn(secure, password);
    expect(cookieOf(overTls.headers['set-cookie'], 'booksync_console')).toMatch(/; Secure/);
  });

  it('refuses a wrong password with the form again, and no session', async () => {
    const wrong = await signIn(app, 'not the password');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('id="sign-in-error"');
    expect(cookieOf(wrong.headers['set-cookie'], 'booksync_console')).toBe('');
  });

  it('refuses a sign-in without its form token (403), with the form again and no session', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: formHeaders(),
      payload: form({ account: 'bookkeeper', password }),
    });
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('id="sign-in-error"');
    expect(cookieOf(response.headers['set-cookie'], 'booksync_console')).toBe('');
  });

  it('throttles an account at an address after ten refused passwords', async () => {
    const target = consoleApp().app;
    for (let i = 0; i < 10; i++) expect((await signIn(target, `guess-${i}`)).statusCode).toBe(401);
    const blocked = await signIn(target, password);
    expect(blocked.statusCode).toBe(429);
  });

  it('ends the session on sign-out: its cookie opens nothing after', async () => {
    const { cookie, csrf } = await session(app);
    const out = await app.inject({
      method: 'POST',
      url: '/console/sign-out',
      headers: formHeaders(cookie),
      payload: form({ _csrf: csrf }),
    });
    expect(out.statusCode).toBe(303);
    expect((await app.inject({ method: 'GET', url: '/console', headers: { cookie } })).statusCode).toBe(401);
  });

  it('sends its pages with a CSP that allows no script', async () => {
    const { overview } = await session(app);
    expect(overview.headers['content-security-policy']).toContain("default-src 'none'");
    expect(overview.headers['content-security-policy']).not.toContain('script-src');
    expect(overview.headers['x-frame-options']).toBe('DENY');
    // The CSP allows the stylesheet only: no page may rely on an inline style attribute either.
    const { cookie } = await session(app);
    for (const url of [
      '/console',
      '/console/sync-errors',
      '/console/receivables',
      '/console/payouts',
      '/console/close',
      '/console/audit',
    ]) {
      const page = await app.inject({ method: 'GET', url, headers: { cookie } });
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).not.toMatch(/ style="|<script/);
    }
  });
});

describe('CSRF and the actions', () => {
  it('refuses a POST without the session CSRF token, or with another, with 403', async () => {
    const { cookie } = await session(app);
    const other = await session(app);
    for (const token of [undefined, 'forged', other.csrf]) {
      const response = await app.inject({
        method: 'POST',
        url: '/console/sync-errors/retry',
        headers: formHeaders(cookie),
        payload: form({ target: 'ledger-mirror', ...(token ? { _csrf: token } : {}) }),
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'csrf_invalid' });
    }
    expect(signals).toEqual([]);
  });

  it('retries a failed entry through the push workflow, and records who did it', async () => {
    const { cookie, csrf } = await session(app);
    const errors = await app.inject({ method: 'GET', url: '/console/sync-errors', headers: { cookie } });
    expect(errors.body).toContain('data-key="payment:pay_1"');
    const response = await app.inject({
      method: 'POST',
      url: '/console/sync-errors/retry',
      headers: formHeaders(cookie),
      payload: form({ _csrf: csrf, target: 'ledger-mirror', key: 'payment:pay_1' }),
    });
    expect(response.statusCode).toBe(303);
    expect(signals).toEqual([
      {
        workflowId: 'accounting-target-ledger-mirror',
        signal: 'retryEntries',
        args: [{ keys: ['payment:pay_1'] }],
      },
    ]);
    const notice = await app.inject({
      method: 'GET',
      url: response.headers.location as string,
      headers: { cookie },
    });
    expect(notice.body).toContain('Queued 1 entry of ledger-mirror for another push.');
    const audit = await app.inject({ method: 'GET', url: '/console/audit', headers: { cookie } });
    expect(audit.body).toMatch(
      /<td>bookkeeper \(console password\)<\/td><td>bookkeeper<\/td><td>retry<\/td><td>retry payment:pay_1 at ledger-mirror<\/td><td>queued 1<\/td>/,
    );
    expect(audit.body).toContain('<td>sign-in</td><td>wrong password</td><td>refused</td>');
  });

  it('lets a read-only session see every page and act on nothing', async () => {
    const { cookie, csrf, overview } = await session(app, readonlyPassword, 'reader');
    expect(overview.body).toContain('(read-only)');
    for (const url of ['/console/sync-errors', '/console/receivables', '/console/close', '/console/audit']) {
      const page = await app.inject({ method: 'GET', url, headers: { cookie } });
      expect(page.statusCode, url).toBe(200);
      expect(page.body).not.toContain('<button type="submit" class="secondary"');
    }
    const before = signals.length;
    const refused = await app.inject({
      method: 'POST',
      url: '/console/sync-errors/retry',
      headers: formHeaders(cookie),
      payload: form({ _csrf: csrf, target: 'ledger-mirror' }),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'read_only' });
    expect(signals.length).toBe(before);
  });
});

describe('what the console shows', () => {
  it('shows a customer named <script> as text, and a target message with markup as text', async () => {
    const { cookie } = await session(app);
    const receivables = await app.inject({ method: 'GET', url: '/console/receivables', headers: { cookie } });
    expect(receivables.body).toContain('&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;');
    expect(receivables.body).toContain('Flour &lt;b&gt;Mill&lt;/b&gt;');
    expect(receivables.body).not.toMatch(/<script|<b>Mill/);
    const errors = await app.inject({ method: 'GET', url: '/console/sync-errors', headers: { cookie } });
    expect(errors.body).toContain('account &lt;img src=x onerror=alert(1)&gt; does not exist');
    expect(errors.body).not.toContain('<img');
    const search = await app.inject({
      method: 'GET',
      url: `/console/receivables?q=${encodeURIComponent('"><script>x</script>')}`,
      headers: { cookie },
    });
    expect(search.body).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(search.body).not.toContain('<script');
  });

  it('ages the open invoices and bills by their entry date, and finds them by id or name', async () => {
    const { cookie } = await session(app);
    const page = await app.inject({ method: 'GET', url: '/console/receivables', headers: { cookie } });
    // pl_1: dated 1 January, 73 days before 15 March, 600.00 still owed, in 61-90.
    expect(page.body).toMatch(
      /data-document="pl_1" data-open-cents="60000">[\s\S]*?<td>2026-01-01<\/td><td class="num">73<\/td><td class="num"><\/td><td class="num"><\/td><td class="num">\$600\.00<\/td><td class="num"><\/td>/,
    );
    expect(page.body).toMatch(
      /data-document="bill_1" data-open-cents="25000">[\s\S]*?<td>2026-03-10<\/td><td class="num">5<\/td><td class="num">\$250\.00<\/td>/,
    );
    const byName = await app.inject({
      method: 'GET',
      url: '/console/receivables?q=flour',
      headers: { cookie },
    });
    expect(byName.body).toContain('data-document="bill_1"');
    expect(byName.body).not.toContain('data-document="pl_1"');
    const byInvoice = await app.inject({
      method: 'GET',
      url: '/console/receivables?q=INV-pl_1',
      headers: { cookie },
    });
    expect(byInvoice.body).toContain('data-document="pl_1"');
    expect(byInvoice.body).not.toContain('data-document="bill_1"');
  });

  it('shows the books balanced and each target as `targets status` counts it', async () => {
    const { overview } = await session(app);
    expect(overview.body).toContain('id="books-balanced" class="ok"');
    expect(overview.body).toContain(
      '<p id="last-reconciliation">reconcile-scheduled-2026-03-15T11:00:00Z: <span class="">COMPLETED</span>, started 2026-03-15T11:00:00.000Z, ended 2026-03-15T11:00:04.000Z.</p>',
    );
    expect(overview.body).toContain('No certificate yet');
    expect(overview.body).toMatch(
      /data-target="ledger-mirror">\s*<th scope="row">ledger-mirror<\/th><td class="num">0<\/td><td class="num">2<\/td>/,
    );
  });
});

describe('the recent payouts', () => {
  it('lists the payouts the books hold, newest first, with their amount, status and a link to each report', async () => {
    const books = await ledgerWithPayouts([
      { id: 'po_march_1', cents: 120_050, sent: '2026-03-01', paid: '2026-03-03' },
      { id: 'po_march_10', cents: 30_000, sent: '2026-03-10', failedOn: '2026-03-12' },
      { id: 'po_march_5', cents: 45_000, sent: '2026-03-05' },
    ]);
    const target = consoleApp({ ledger: books }).app;
    const { cookie } = await session(target);
    const page = await target.inject({ method: 'GET', url: '/console/payouts', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    const rows = [...page.body.matchAll(/<tr data-disbursement="([^"]+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map((r) => r[1])).toEqual(['po_march_10', 'po_march_5', 'po_march_1']);
    expect(rows[0]![2]).toContain('<a href="/console/payouts?disbursement=po_march_10">po_march_10</a>');
    expect(rows[0]![2]).toMatch(/<td>2026-03-10<\/td><td class="num">\$300\.00<\/td><td class="bad">failed/);
    expect(rows[1]![2]).toMatch(
      /<td>2026-03-05<\/td><td class="num">\$450\.00<\/td><td class="">pending<\/td>/,
    );
    expect(rows[2]![2]).toMatch(
      /<td>2026-03-01<\/td><td class="num">\$1200\.50<\/td><td class="ok">paid <span class="muted">\(reached the bank 2026-03-03\)/,
    );
    expect(page.body).not.toContain('id="older-payouts"');
  });

  it('pages 20 at a time: an older link, and a newer one back', async () => {
    const books = await ledgerWithPayouts(
      Array.from({ length: 22 }, (_, i) => ({
        id: `po_${String(i + 1).padStart(2, '0')}`,
        cents: 1_000 + i,
        sent: `2026-02-${String(i + 1).padStart(2, '0')}`,
      })),
    );
    const target = consoleApp({ ledger: books }).app;
    const { cookie } = await session(target);
    const first = await target.inject({ method: 'GET', url: '/console/payouts', headers: { cookie } });
    const ids = (body: string) => [...body.matchAll(/<tr data-disbursement="([^"]+)">/g)].map((m) => m[1]);
    expect(ids(first.body)).toHaveLength(20);
    expect(ids(first.body)[0]).toBe('po_22');
    expect(first.body).toContain('<a href="/console/payouts?older=20" id="older-payouts">Older payouts</a>');
    const older = await target.inject({
      method: 'GET',
      url: '/console/payouts?older=20',
      headers: { cookie },
    });
    expect(ids(older.body)).toEqual(['po_02', 'po_01']);
    expect(older.body).toContain('<a href="/console/payouts?older=0" id="newer-payouts">Newer payouts</a>');
    expect(older.body).not.toContain('id="older-payouts"');
  });
});

describe('payout reports from the console start workflows only for what the books hold', () => {
  async function withCountedStarts() {
    const books = await ledgerWithPayouts([{ id: 'po_known', cents: 30_000, sent: '2026-03-10' }]);
    const temporal = consoleTemporalFake();
    const started: string[] = [];
    const workflow = temporal.client.workflow as unknown as Record<string, unknown>;
    workflow.start = async (_type: string, options: { workflowId: string }) => {
      started.push(options.workflowId);
      throw new Error('no worker in this test');
    };
    const target = consoleApp({ ledger: books }, temporal).app;
    const { cookie } = await session(target, readonlyPassword, 'reader');
    const get = (query: string) =>
      target.inject({ method: 'GET', url: `/console/payouts?${query}`, headers: { cookie } });
    return { get, started };
  }

  it('an id the books do not hold, or not shaped as an id, starts nothing', async () => {
    const { get, started } = await withCountedStarts();
    const unknown = await get('disbursement=po_made_up');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toContain('the books hold no payout po_made_up');
    expect((await get(`disbursement=${encodeURIComponent('po_1;drop')}`)).statusCode).toBe(400);
    expect(started).toEqual([]);
    await get('disbursement=po_known');
    expect(started).toHaveLength(1);
  });

  it('a period longer than a year starts nothing', async () => {
    const { get, started } = await withCountedStarts();
    const long = await get('from=2020-01-01&to=2026-03-01');
    expect(long.body).toContain('a period of at most 366 days');
    expect(started).toEqual([]);
    await get('from=2026-01-01&to=2026-03-01');
    expect(started).toHaveLength(1);
  });
});

describe("an OAuth target's connection, from its token store", () => {
  const sealed = 'v1.SEALED-REFRESH-TOKEN-never-shown';
  async function connections() {
    const quickbooks = new OAuthConnectionFile(path.join(scratch, 'qbo.json'), 'realmId', 'QuickBooks');
    await quickbooks.writeConnection({
      companyId: 'realm-<script>1</script>',
      refreshToken: sealed,
      connectedAt: '2026-03-01T09:00:00.000Z',
    });
    // What the token store records when QuickBooks refuses the refresh (revoked): no push has failed yet.
    await quickbooks.storage('realm-<script>1</script>').refused?.(sealed, 'invalid_grant');
    const xero = new OAuthConnectionFile(path.join(scratch, 'xero.json'), 'tenantId', 'Xero');
    await xero.writeConnection({
      companyId: 'tenant-42',
      refreshToken: `${sealed}-xero`,
      connectedAt: '2026-03-02T09:00:00.000Z',
    });
    return new Map([
      ['quickbooks', { store: quickbooks }],
      ['xero', { store: xero }],
      [
        'ledger-mirror',
        { store: null, problem: 'QBO_CLIENT_ID, QBO_CLIENT_SECRET and QBO_TOKEN_KEY must be set' },
      ],
    ]);
  }

  it('names the reconnect command for a revoked QuickBooks connection with no failed push, on the Overview and Sync errors', async () => {
    const target = consoleApp({ targets: ['quickbooks', 'xero'], oauthConnections: await connections() }).app;
    const { cookie, overview } = await session(target);
    expect(overview.body).toContain('data-oauth="quickbooks" data-state="refused"');
    expect(overview.body).toContain('<code>realm-&lt;script&gt;1&lt;/script&gt;</code>, invalid_grant at ');
    expect(overview.body).toMatch(
      /<p class="error" id="reconnect-quickbooks">quickbooks refused the connection \(invalid_grant\): run <code>npx booksync targets connect quickbooks<\/code>/,
    );
    // Xero is connected: its organisation, and no reconnect help.
    expect(overview.body).toContain(
      'data-oauth="xero" data-state="connected">connected</span> to <code>tenant-42</code> since 2026-03-02T09:00:00.000Z',
    );
    expect(overview.body).not.toContain('id="reconnect-xero"');
    const errors = await target.inject({ method: 'GET', url: '/console/sync-errors', headers: { cookie } });
    expect(errors.body).toContain('quickbooks: 0 failed');
    expect(errors.body).toContain('<code>npx booksync targets connect quickbooks</code>');
    expect(errors.body).not.toContain('npx booksync targets connect xero');
    for (const body of [overview.body, errors.body]) {
      expect(body).not.toContain('SEALED-REFRESH-TOKEN');
      expect(body).not.toContain('<script>');
    }
  });

  it('says not connected, with the command, when the store holds no connection or the settings are incomplete', async () => {
    const empty = new OAuthConnectionFile(path.join(scratch, 'none.json'), 'tenantId', 'Xero');
    const target = consoleApp({
      targets: ['quickbooks', 'xero', 'ledger-mirror'],
      oauthConnections: new Map([
        [
          'quickbooks',
          { store: null, problem: 'QBO_CLIENT_ID, QBO_CLIENT_SECRET and QBO_TOKEN_KEY must be set' },
        ],
        ['xero', { store: empty }],
      ]),
    }).app;
    const { overview } = await session(target);
    expect(overview.body).toContain('data-oauth="xero" data-state="not-connected"');
    expect(overview.body).toContain('<code>npx booksync targets connect xero</code>');
    expect(overview.body).toContain('QBO_CLIENT_ID, QBO_CLIENT_SECRET and QBO_TOKEN_KEY must be set');
    expect(overview.body).toContain('<code>npx booksync targets connect quickbooks</code>');
    // The mirror has no OAuth connection: the push flow's state only, and no reconnect help.
    expect(overview.body).not.toContain('data-oauth="ledger-mirror"');
    expect(overview.body).not.toContain('id="reconnect-ledger-mirror"');
  });
});
