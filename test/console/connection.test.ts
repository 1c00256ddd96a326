import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnvFile } from '../../src/config/env-file.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import type { ConsoleOptions } from '../../src/console/options.js';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress } from '../../src/ingress/server.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { quickBooksSettings } from '../../src/runtime/targets/quickbooks-connection.js';
import { boundTargetSetups } from '../../src/runtime/targets/target-setups.js';
import { parseAccountMapping } from '../../src/targets/account-mapping.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import { consoleTemporalFake } from './console-fakes.js';
import { form, formHeaders, session } from './console-inject.js';

// The console's Connection page on a new QBO company (the double's fresh chart: no account numbers, QBO's
// own names): the plan `booksync targets setup quickbooks` prints, role by role; the bookkeeper's "Create the
// missing accounts" doing what --apply does (accounts created, TARGET_ACCOUNTS written, audited); a reader
// seeing the plan and refused the action.

const key = 'console-setup-test-key-0123456789';
const password = 'bookkeeper-password-for-setup';
const readonlyPassword = 'reader-password-for-setup';
let double: QuickBooksDouble;
let dir: string;
let ledger: EmbeddedLedger;
const apps: IngressApp[] = [];

beforeAll(async () => {
  double = await new QuickBooksDouble().start();
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-console-setup-'));
  ledger = EmbeddedLedger.open();
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  ledger?.close();
  await double?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The settings of a process started now: the environment over BOOKSYNC_DATA_DIR/booksync.env. */
function settingsNow(realmId: string, folder: string): Settings {
  const env: NodeJS.ProcessEnv = {
    BOOKSYNC_DATA_DIR: folder,
    QBO_CLIENT_ID: double.clientId,
    QBO_CLIENT_SECRET: double.clientSecret,
    QBO_TOKEN_KEY: key,
    QBO_BASE_URL: double.url,
    QBO_OAUTH_URL: double.url,
    QBO_REALM_ID: realmId,
  };
  loadEnvFile(env);
  return loadSettings(env);
}

/** A new QBO company connected, and a console whose process has its settings. */
async function connectedConsole(folder: string, overrides: Partial<ConsoleOptions> = {}) {
  const realmId = double.createRealm(undefined, { chart: 'fresh' });
  const settings = settingsNow(realmId, folder);
  await quickBooksSettings(settings).connection.writeConnection({
    companyId: realmId,
    refreshToken: new TokenCipher(key).seal(double.connect(realmId)),
    connectedAt: new Date().toISOString(),
  });
  const app = createIngress({
    temporalClient: consoleTemporalFake().client,
    taskQueue: 'console-setup-test',
    webhookSecrets: ['whsec_console_setup_test'],
    commandApiKey: 'console-setup-test-command-key-0123456789',
    console: {
      ledger,
      targetIndex: new SqliteTargetIndex(ledger.database),
      targets: ['quickbooks'],
      credentials: { password, readonlyPassword },
      timeZone: 'UTC',
      secureCookie: false,
      targetSetup: boundTargetSetups(settings, silentLogger),
      ...overrides,
    },
  });
  apps.push(app);
  return { realmId, app };
}

const accounts = (realmId: string) => double.all(realmId, 'Account');
const rowOf = (body: string, role: string) =>
  new RegExp(`<tr data-role="${role}" data-step="(\\w+)">`).exec(body)?.[1];

describe('the console’s Connection page', () => {
  it('shows the plan, and the bookkeeper’s action creates the missing accounts and writes the mapping, audited', async () => {
    const folder = path.join(dir, 'apply');
    const { realmId, app } = await connectedConsole(folder);
    const { cookie, csrf } = await session(app, password);
    const chartBefore = accounts(realmId).length;

    const before = await app.inject({ method: 'GET', url: '/console/connection', headers: { cookie } });
    expect(before.statusCode).toBe(200);
    expect(before.body).toContain(`QuickBooks company ${realmId}: ${chartBefore} accounts.`);
    expect(rowOf(before.body, 'ProcessorClearing')).toBe('matched');
    expect(before.body).toMatch(
      /data-role="ProcessorClearing"[\s\S]*?Undeposited Funds[\s\S]*?Other Current Asset \(subtype UndepositedFunds\)/,
    );
    expect(rowOf(before.body, 'OperatingBank')).toBe('create');
    expect(before.body).toMatch(/data-role="OperatingBank"[\s\S]*?Operating Bank, Bank \(subtype Checking\)/);
    expect(before.body).toContain('15 accounts to create.');
    expect(before.body).toContain('<button type="submit">Create the missing accounts</button>');
    // The console's CSP allows its stylesheet only: no inline style, no script.
    expect(before.body).not.toMatch(/ style="|<script/);
    // Reading the plan creates nothing.
    expect(accounts(realmId).length).toBe(chartBefore);

    // Without the form's token: refused, nothing created.
    const forged = await app.inject({
      method: 'POST',
      url: '/console/connection/apply',
      headers: formHeaders(cookie),
      payload: form({ target: 'quickbooks' }),
    });
    expect(forged.statusCode).toBe(403);
    expect(accounts(realmId).length).toBe(chartBefore);

    const applied = await app.inject({
      method: 'POST',
      url: '/console/connection/apply',
      headers: formHeaders(cookie),
      payload: form({ _csrf: csrf, target: 'quickbooks' }),
    });
    expect(applied.statusCode).toBe(200);
    expect(applied.body).toMatch(/<div id="outcome" role="status" class="notice">/);
    expect(applied.body).toMatch(/created Operating Bank \(Bank \(subtype Checking\)\), id \d+/);
    expect(applied.body).toContain('every role maps to an account of the type it needs: booksync can start');
    expect(accounts(realmId).length).toBe(chartBefore + 15);
    // The mapping is in the settings file the other commands read, and names the accounts created.
    const file = path.join(folder, 'booksync.env');
    expect(readFileSync(file, 'utf8')).toContain('TARGET_ACCOUNTS=');
    const mapping = parseAccountMapping(settingsNow(realmId, folder).TARGET_ACCOUNTS);
    expect(mapping.OperatingBank).toBe(accounts(realmId).find((a) => a.Name === 'Operating Bank')?.Id);
    // The page read again: every role matched and mapped, nothing left to do.
    for (const role of ['OperatingBank', 'ProcessorClearing', 'BillExpenses'])
      expect(rowOf(applied.body, role)).toBe('matched');
    expect(applied.body).toContain('Every role is matched and');
    expect(applied.body).not.toContain('Create the missing accounts</button>');

    const audit = await app.inject({ method: 'GET', url: '/console/audit', headers: { cookie } });
    expect(audit.body).toContain('target-setup');
    expect(audit.body).toContain(
      'create the missing accounts at quickbooks and write TARGET_ACCOUNTS (15 to create)',
    );
    for (const body of [before.body, applied.body, audit.body]) {
      expect(body).not.toContain(double.clientSecret);
      expect(body).not.toContain(key);
    }
  });

  it('shows a reader the plan without the action, and refuses the reader’s POST', async () => {
    const { realmId, app } = await connectedConsole(path.join(dir, 'reader'));
    const { cookie, csrf } = await session(app, readonlyPassword, 'reader');
    const page = await app.inject({ method: 'GET', url: '/console/connection', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(rowOf(page.body, 'OperatingBank')).toBe('create');
    expect(page.body).toContain('15 accounts to create.');
    expect(page.body).not.toContain('action="/console/connection/apply"');
    expect(page.body).toContain('Signed in read-only: creating the accounts needs the console password.');
    const count = accounts(realmId).length;
    const refused = await app.inject({
      method: 'POST',
      url: '/console/connection/apply',
      headers: formHeaders(cookie),
      payload: form({ _csrf: csrf, target: 'quickbooks' }),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'read_only' });
    expect(accounts(realmId).length).toBe(count);
  });

  it('names a conflict with its reason, offers no action, and refuses to apply, creating nothing', async () => {
    const { realmId, app } = await connectedConsole(path.join(dir, 'conflict'));
    double.seed(realmId, 'Account', { Name: 'Operating Bank', AccountType: 'Expense', Active: true });
    const { cookie, csrf } = await session(app, password);
    const page = await app.inject({ method: 'GET', url: '/console/connection', headers: { cookie } });
    expect(rowOf(page.body, 'OperatingBank')).toBe('conflict');
    expect(page.body).toMatch(
      /data-role="OperatingBank"[\s\S]*?Operating Bank \(<code>\d+<\/code>\), Expense<\/td><td>named Operating Bank; OperatingBank requires Bank/,
    );
    expect(page.body).toContain('Conflicts: rename those accounts in QuickBooks');
    expect(page.body).not.toContain('action="/console/connection/apply"');
    const count = accounts(realmId).length;
    const refused = await app.inject({
      method: 'POST',
      url: '/console/connection/apply',
      headers: formHeaders(cookie),
      payload: form({ _csrf: csrf, target: 'quickbooks' }),
    });
    expect(refused.statusCode).toBe(200);
    expect(refused.body).toContain('A role conflicts: nothing was created.');
    expect(accounts(realmId).length).toBe(count);
    const audit = await app.inject({ method: 'GET', url: '/console/audit', headers: { cookie } });
    expect(audit.body).toContain('refused: a role conflicts');
  });

  it('says a target without a setup plan has none, and refuses to apply one', async () => {
    const { app } = await connectedConsole(path.join(dir, 'none'), {
      targets: ['quickbooks', 'ledger-mirror'],
    });
    const { cookie, csrf } = await session(app, password);
    const page = await app.inject({ method: 'GET', url: '/console/connection', headers: { cookie } });
    expect(page.body).toContain('No setup plan for ledger-mirror');
    const refused = await app.inject({
      method: 'POST',
      url: '/console/connection/apply',
      headers: formHeaders(cookie),
      payload: form({ _csrf: csrf, target: 'ledger-mirror' }),
    });
    expect(refused.statusCode).toBe(400);
  });
});
