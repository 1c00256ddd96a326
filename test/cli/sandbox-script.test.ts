import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BooksyncProcess } from '../support/booksync-start.js';
import { shortMinute, shortMinuteLimits } from '../support/xero/short-minute.js';

// `npm run sandbox -- quickbooks|xero` (scripts/sandbox.ts), which an operator runs against an Intuit sandbox
// company or a Xero demo company, here pointed at the doubles by their base URLs (QBO_BASE_URL, QBO_OAUTH_URL;
// XERO_BASE_URL, XERO_TOKEN_URL): on a new company it sets
// booksync's accounts up, books the demo's day, closes its month with a passing certificate and prints what the
// company holds. Without the credentials it exits 2 naming them.

// No latency: set-up's creates outrun QBO's ten a second, so the limiter waits mid-command (and the command must
// not end there).
const double = new QuickBooksDouble();
const xero = new XeroDouble({ limits: shortMinuteLimits });
const ports = new BooksyncProcess();
const dataDirs: string[] = [];

beforeAll(async () => {
  await Promise.all([double.start(), xero.start()]);
  await ports.prepare({}, { temporal: 'own' });
});
afterAll(async () => {
  await ports.stop('sandbox-script');
  await Promise.all([double.stop(), xero.stop()]);
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

function sandbox(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const child = spawn(path.resolve('node_modules/.bin/tsx'), ['scripts/sandbox.ts', ...args], { env });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

describe('npm run sandbox', { timeout: 900_000 }, () => {
  it('without the credentials exits 2, naming what to set', async () => {
    const env = { ...process.env };
    for (const name of ['QBO_CLIENT_ID', 'QBO_CLIENT_SECRET', 'QBO_REFRESH_TOKEN', 'QBO_REALM_ID'])
      delete env[name];
    const { code, out } = await sandbox(['quickbooks'], env);
    expect(code).toBe(2);
    expect(out).toContain('set QBO_CLIENT_ID, QBO_CLIENT_SECRET, QBO_REFRESH_TOKEN, QBO_REALM_ID');
  });

  it('on a new QuickBooks company: set-up, the demo day, its month closed, the certificate passing', async () => {
    const realmId = double.createRealm();
    const chartBefore = double.all(realmId, 'Account').length;
    const { code, out } = await sandbox(['quickbooks'], {
      ...ports.env,
      QBO_CLIENT_ID: double.clientId,
      QBO_CLIENT_SECRET: double.clientSecret,
      QBO_REFRESH_TOKEN: double.connect(realmId),
      QBO_REALM_ID: realmId,
      QBO_BASE_URL: double.url,
      QBO_OAUTH_URL: double.url,
    });
    dataDirs.push(/data folder (\S+)/.exec(out)?.[1] ?? '');
    expect(code, out.slice(-4000)).toBe(0);
    expect(out).toContain('every role maps to an account of the type it needs');
    expect(out).toMatch(/certificate \d{4}-\d{2}-01 to \d{4}-\d{2}-\d{2}: PASSES/);
    expect(out).toMatch(/what the quickbooks company holds in booksync's accounts as of \d{4}-\d{2}-\d{2}/);
    expect(out).toMatch(/^ {2}OperatingBank +-?\d+\.\d{2} {2}ledger -?\d+\.\d{2}$/m);
    expect(double.all(realmId, 'Account').length).toBeGreaterThan(chartBefore);
    expect(double.all(realmId, 'Invoice').length).toBeGreaterThan(0);
    expect(out).toMatch(/the newest refresh token is in \S+/);
    expect(double.violations).toEqual([]);
  });

  it("on Xero's demo company: set-up, the demo day, its month closed, the certificate passing", async () => {
    const tenantId = xero.createTenant('Demo Company (Global)');
    const chartBefore = xero.all(tenantId, 'Accounts').length;
    const { code, out } = await sandbox(['xero'], {
      ...ports.env,
      XERO_CLIENT_ID: xero.clientId,
      XERO_CLIENT_SECRET: xero.clientSecret,
      // Every granular scope, accounting.settings among them: set-up creates accounts.
      XERO_REFRESH_TOKEN: xero.connect(tenantId),
      XERO_TENANT_ID: tenantId,
      XERO_BASE_URL: xero.url,
      XERO_TOKEN_URL: `${xero.url}/connect/token`,
      XERO_RATE_WINDOW: shortMinute.setting,
    });
    dataDirs.push(/data folder (\S+)/.exec(out)?.[1] ?? '');
    expect(code, out.slice(-4000)).toBe(0);
    expect(out).toMatch(/certificate \d{4}-\d{2}-01 to \d{4}-\d{2}-\d{2}: PASSES/);
    expect(out).toMatch(/what the xero company holds in booksync's accounts as of \d{4}-\d{2}-\d{2}/);
    expect(xero.all(tenantId, 'Accounts').length).toBeGreaterThan(chartBefore);
    expect(xero.all(tenantId, 'Invoices').length).toBeGreaterThan(0);
    expect(xero.violations).toEqual([]);
  });
});
