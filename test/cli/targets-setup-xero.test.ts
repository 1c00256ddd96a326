import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTarget } from '../../src/cli/commands/targets-setup.js';
import { loadEnvFile } from '../../src/config/env-file.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { silentLogger } from '../../src/logging/logger.js';
import { openXeroTarget, xeroSettings } from '../../src/runtime/targets/xero-connection.js';
import { parseAccountMapping } from '../../src/targets/account-mapping.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { PushContext } from '../../src/targets/target-port.js';
import { xeroOrganisation } from '../support/xero/organisation.js';
import { documentsForContract } from '../targets/target-contract.js';

// `booksync targets setup xero` on an organisation that starts as Xero's demo company (Xero's default chart,
// none of booksync's accounts): the plan, --apply creating what is missing and writing TARGET_ACCOUNTS to the
// settings file, start-up's verify() passing with that mapping, a second run changing nothing, and the
// target then booking an invoice and its payment in the organisation.

const key = 'setup-test-key-0123456789';
const double = new XeroDouble();
let dir: string;

beforeAll(async () => {
  await double.start();
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-setup-xero-'));
});
afterAll(async () => {
  await double.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The settings a command in another terminal reads: the environment over BOOKSYNC_DATA_DIR/booksync.env. */
function settingsNow(tenantId: string, folder = dir): Settings {
  const env: NodeJS.ProcessEnv = {
    BOOKSYNC_DATA_DIR: folder,
    XERO_CLIENT_ID: double.clientId,
    XERO_CLIENT_SECRET: double.clientSecret,
    XERO_TOKEN_KEY: key,
    XERO_BASE_URL: double.url,
    XERO_TOKEN_URL: `${double.url}/connect/token`,
    XERO_TENANT_ID: tenantId,
  };
  loadEnvFile(env);
  return loadSettings(env);
}

/** A demo organisation, connected with `scopes` (every granular one by default). */
async function demoOrganisation(folder = dir, scopes?: string[]): Promise<string> {
  const tenantId = double.createTenant('Demo Company (Global)', { chart: 'demo' });
  const token = scopes ? double.connectWith([tenantId], scopes) : double.connect(tenantId);
  await xeroSettings(settingsNow(tenantId, folder)).connection.writeConnection({
    companyId: tenantId,
    refreshToken: new TokenCipher(key).seal(token),
    connectedAt: new Date().toISOString(),
  });
  return tenantId;
}

async function setup(
  tenantId: string,
  args: string[] = [],
  folder = dir,
): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await setupTarget({
    args: ['xero', ...args],
    settings: settingsNow(tenantId, folder),
    logger: silentLogger,
    out: (line) => lines.push(line),
  });
  return { code, lines };
}

const accounts = (tenantId: string) => double.all(tenantId, 'Accounts');

describe("booksync targets setup xero on Xero's demo company", () => {
  it('plans, creates what is missing, writes the mapping verify() accepts, is idempotent, and the target books a payment', async () => {
    const tenantId = await demoOrganisation();
    // Before: booksync's default codes are nowhere in it, so start-up would stop.
    const before = await openXeroTarget({
      settings: settingsNow(tenantId),
      accounts: parseAccountMapping(undefined),
      logger: silentLogger,
    });
    await expect(before.verify()).rejects.toThrow(/account OperatingBank \(code 1010\) is not in the Xero/);
    const chartBefore = accounts(tenantId).length;

    const plan = await setup(tenantId);
    expect(plan.code).toBe(0);
    const text = plan.lines.join('\n');
    expect(text).toMatch(
      /AccountsReceivable +matched +Accounts Receivable \(610, CURRENT \(system account DEBTORS\)\): Xero's DEBTORS system account/,
    );
    expect(text).toMatch(/Revenue +matched +Sales \(200, REVENUE\): named Sales/);
    expect(text).toMatch(/BankCharges +matched +Bank Fees \(404, OVERHEADS\): named Bank Fees/);
    expect(text).toMatch(/OperatingBank +to create Operating Bank \(BANK, code 1010\)/);
    expect(text).toMatch(/UnappliedCash +to create Unapplied Cash \(CURRLIAB, payments enabled, code 2020\)/);
    expect(text).toContain('16 accounts to create: run again with --apply');
    expect(accounts(tenantId).length).toBe(chartBefore);

    const applied = await setup(tenantId, ['--apply']);
    expect(applied.lines.join('\n')).toContain('every role maps to an account of the type it needs');
    expect(applied.code).toBe(0);
    expect(accounts(tenantId).length).toBe(chartBefore + 16);
    expect(accounts(tenantId).find((a) => a.Code === '1010')).toMatchObject({
      Name: 'Operating Bank',
      Type: 'BANK',
      BankAccountNumber: '0900001010',
    });
    expect(accounts(tenantId).find((a) => a.Code === '2020')).toMatchObject({
      Type: 'CURRLIAB',
      EnablePaymentsToAccount: true,
    });
    const file = path.join(dir, 'booksync.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const mapping = parseAccountMapping(settingsNow(tenantId).TARGET_ACCOUNTS);
    expect(mapping).toMatchObject({
      OperatingBank: '1010',
      AccountsReceivable: '610',
      AccountsPayable: '800',
      Revenue: '200',
      BankCharges: '404',
      BillExpenses: '429',
      UnappliedCash: '2020',
    });

    const again = await setup(tenantId);
    expect(again.code).toBe(0);
    expect(again.lines.filter((l) => /^ {2}\w+ +matched /.test(l))).toHaveLength(21);
    expect(again.lines.join('\n')).toContain('every role is matched and');

    // Start-up's check with the mapping the other commands now read.
    const after = await openXeroTarget({
      settings: settingsNow(tenantId),
      accounts: mapping,
      logger: silentLogger,
    });
    await expect(after.verify()).resolves.toBeUndefined();

    const written = readFileSync(file, 'utf8');
    const count = accounts(tenantId).length;
    const second = await setup(tenantId, ['--apply']);
    expect(second.code).toBe(0);
    expect(second.lines.join('\n')).toContain('nothing to change');
    expect(accounts(tenantId).length).toBe(count);
    expect(readFileSync(file, 'utf8')).toBe(written);

    // The target pushes into the set-up organisation: the invoice on Sales (200), its payment into the new
    // Processor Clearing bank account, the receivable Xero's own.
    const target = xeroOrganisation(double, new TokenCipher(key), { tenantId, accounts: mapping }).target();
    const docs = documentsForContract();
    const noIndex: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };
    await target.push(docs.invoice, noIndex);
    await target.push(docs.payment, noIndex);
    const [invoice] = double.all(tenantId, 'Invoices');
    expect(invoice).toMatchObject({ Type: 'ACCREC', Status: 'AUTHORISED', AmountDue: 70 });
    expect(invoice?.LineItems).toEqual([expect.objectContaining({ AccountCode: '200' })]);
    const [payment] = double.all(tenantId, 'Payments');
    expect(payment).toMatchObject({ Amount: 50, Account: { Code: mapping.ProcessorClearing } });
    expect(double.balanceOf(tenantId, '610')).toBe(70_00);
    expect(double.balanceOf(tenantId, mapping.ProcessorClearing)).toBe(50_00);
    expect(double.violations).toEqual([]);
  });

  it('a create whose answer is lost is asked again under its key: each account is made once', async () => {
    const folder = path.join(dir, 'lost-answer');
    const tenantId = await demoOrganisation(folder);
    const count = accounts(tenantId).length;
    // Xero makes the first new account, then its answer is lost (a 502): the command asks again.
    double.loseResponses(1);
    const { code, lines } = await setup(tenantId, ['--apply'], folder);
    const text = lines.join('\n');
    expect(text).toMatch(/asking again in \d+ s/);
    expect(text).toContain('every role maps to an account of the type it needs');
    expect(code).toBe(0);
    expect(accounts(tenantId).length).toBe(count + 16);
    const codes = accounts(tenantId).map((a) => a.Code);
    expect(new Set(codes).size).toBe(codes.length);
    const creates = double.requests.filter((r) => r.tenantId === tenantId && r.method === 'PUT');
    expect(creates).toHaveLength(17);
    expect(new Set(creates.map((r) => r.idempotencyKey)).size).toBe(16);
  });

  it('exits 1 on a conflict, naming it, and creates nothing', async () => {
    const folder = path.join(dir, 'conflict');
    const tenantId = await demoOrganisation(folder);
    // An expense account holding the name booksync gives the processor's clearing account.
    double.seed(tenantId, 'Accounts', {
      Code: '480',
      Name: 'Processor Clearing',
      Type: 'EXPENSE',
      Class: 'EXPENSE',
      Status: 'ACTIVE',
      EnablePaymentsToAccount: false,
    });
    const count = accounts(tenantId).length;
    const { code, lines } = await setup(tenantId, ['--apply'], folder);
    expect(code).toBe(1);
    expect(lines.join('\n')).toMatch(
      /ProcessorClearing +CONFLICT +Processor Clearing \(480\) is EXPENSE, named Processor Clearing; ProcessorClearing requires BANK, not a system account/,
    );
    expect(accounts(tenantId).length).toBe(count);
  });

  it('a connection that may only read settings: names the scope --apply needs, creates nothing', async () => {
    const folder = path.join(dir, 'read-only');
    const scopes = [
      'offline_access',
      'accounting.settings.read',
      'accounting.contacts',
      'accounting.invoices',
      'accounting.payments',
      'accounting.banktransactions',
      'accounting.manualjournals',
    ];
    const tenantId = await demoOrganisation(folder, scopes);
    const count = accounts(tenantId).length;
    const { code, lines } = await setup(tenantId, ['--apply'], folder);
    expect(code).toBe(1);
    expect(lines.join('\n')).toContain("creating accounts needs Xero's accounting.settings scope");
    expect(accounts(tenantId).length).toBe(count);
  });
});
