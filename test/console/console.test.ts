import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounting/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/accounting/embedded-ledger.js';
import { SqliteTargetIndex } from '../../src/accounting/targets/target-index.js';
import type { ConsoleOptions } from '../../src/console/options.js';
import { createIngress, type IngressApp } from '../../src/ingress/server.js';
import { twoLine } from '../accounting/fixtures.js';
import { consoleTemporalFake, hostileReferences, type RecordedSignal } from './console-fakes.js';

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

function consoleApp(overrides: Partial<ConsoleOptions> = {}): { app: IngressApp; signals: RecordedSignal[] } {
  const temporal = consoleTemporalFake();
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

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  ledger?.close();
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const formHeaders = (cookie?: string) => ({
  'content-type': 'application/x-www-form-urlencoded',
  ...(cookie ? { cookie } : {}),
});
const cookieOf = (setCookie: string | string[] | undefined, name: string) =>
  [setCookie ?? []].flat().find((c) => c.startsWith(`${name}=`)) ?? '';
const csrfIn = (body: string) => /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

/** Signs in as a browser does: the form (and its token), then the POST. Returns the response. */
async function signIn(target: IngressApp, secret: string, name = 'Ada') {
  const page = await target.inject({
    method: 'GET',
    url: '/console/sign-in',
    headers: { accept: 'text/html' },
  });
  const preCookie = cookieOf(page.headers['set-cookie'], 'booksync_console_sign_in').split(';')[0];
  return target.inject({
    method: 'POST',
    url: '/console/sign-in',
    headers: formHeaders(preCookie),
    payload: form({ _csrf: csrfIn(page.body), password: secret, name, next: '/console/sync-errors' }),
  });
}

/** A signed-in session: its cookie and the CSRF token its pages carry. */
async function session(target: IngressApp, secret = password) {
  const signedIn = await signIn(target, secret);
  expect(signedIn.statusCode).toBe(303);
  const cookie = cookieOf(signedIn.headers['set-cookie'], 'booksync_console').split(';')[0] as string;
  const overview = await target.inject({ method: 'GET', url: '/console', headers: { cookie } });
  return { cookie, csrf: csrfIn(overview.body), overview };
}

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

  it('takes the command API key as the console password, and refuses a wrong one with the form again', async () => {
    const byKey = await session(app, apiKey);
    expect(byKey.overview.statusCode).toBe(200);
    expect(byKey.overview.body).toContain('Ada (command API key) (bookkeeper)');
    const wrong = await signIn(app, 'not the password', 'Mallory');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('id="sign-in-error"');
    expect(cookieOf(wrong.headers['set-cookie'], 'booksync_console')).toBe('');
  });

  it('refuses a sign-in without its CSRF token (403)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: formHeaders(),
      payload: form({ password }),
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'csrf_invalid' });
  });

  it('throttles an address after ten refused passwords', async () => {
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
      /<td>Ada \(console password\)<\/td><td>bookkeeper<\/td><td>retry<\/td><td>retry payment:pay_1 at ledger-mirror<\/td><td>queued 1<\/td>/,
    );
    expect(audit.body).toContain('<td>sign-in</td><td>wrong password</td><td>refused</td>');
  });

  it('lets a read-only session see every page and act on nothing', async () => {
    const { cookie, csrf, overview } = await session(app, readonlyPassword);
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
