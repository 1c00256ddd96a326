import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTarget } from '../../src/cli/commands/targets-setup.js';
import { loadEnvFile } from '../../src/config/env-file.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { silentLogger } from '../../src/logging/logger.js';
import { openQuickBooksTarget, quickBooksSettings } from '../../src/runtime/targets/quickbooks-connection.js';
import { parseAccountMapping } from '../../src/targets/account-mapping.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';

// `booksync targets setup quickbooks` on a new QBO company (no account numbers, QBO's usual names): the plan,
// --apply creating what is missing and writing TARGET_ACCOUNTS to the settings file, then start-up's verify()
// passing with that mapping, and a second --apply changing nothing.

const key = 'setup-test-key-0123456789';
let double: QuickBooksDouble;
let dir: string;

beforeAll(async () => {
  double = await new QuickBooksDouble().start();
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-setup-'));
});
afterAll(async () => {
  await double?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The settings a command in another terminal reads: the environment over BOOKSYNC_DATA_DIR/booksync.env. */
function settingsNow(realmId: string, folder = dir): Settings {
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

async function setup(
  realmId: string,
  args: string[] = [],
  folder = dir,
): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await setupTarget({
    args: ['quickbooks', ...args],
    settings: settingsNow(realmId, folder),
    logger: silentLogger,
    out: (line) => lines.push(line),
  });
  return { code, lines };
}

const accounts = (realmId: string) => double.all(realmId, 'Account');

describe('booksync targets setup quickbooks on a new company', () => {
  it('plans, creates what is missing, writes the mapping verify() accepts, and is idempotent', async () => {
    const realmId = double.createRealm(undefined, { chart: 'fresh' });
    await quickBooksSettings(settingsNow(realmId)).connection.writeConnection({
      companyId: realmId,
      refreshToken: new TokenCipher(key).seal(double.connect(realmId)),
      connectedAt: new Date().toISOString(),
    });
    // Before: booksync's default numbers are nowhere in it, so start-up would stop.
    const before = await openQuickBooksTarget({
      settings: settingsNow(realmId),
      accounts: parseAccountMapping(undefined),
      logger: silentLogger,
    });
    await expect(before.verify()).rejects.toThrow(/OperatingBank: no QuickBooks account/);
    const chartBefore = accounts(realmId).length;

    const plan = await setup(realmId);
    expect(plan.code).toBe(0);
    const text = plan.lines.join('\n');
    expect(text).toMatch(
      /ProcessorClearing +matched +Undeposited Funds .*Other Current Asset \(subtype UndepositedFunds\)/,
    );
    expect(text).toMatch(/OperatingBank +to create Operating Bank \(Bank \(subtype Checking\)\)/);
    expect(text).toContain('15 accounts to create: run again with --apply');
    expect(accounts(realmId).length).toBe(chartBefore);

    const applied = await setup(realmId, ['--apply']);
    expect(applied.lines.join('\n')).toContain('every role maps to an account of the type it needs');
    expect(applied.code).toBe(0);
    expect(accounts(realmId).length).toBe(chartBefore + 15);
    const bank = accounts(realmId).find((a) => a.Name === 'Operating Bank');
    expect(bank).toMatchObject({ AccountType: 'Bank', AccountSubType: 'Checking' });
    const file = path.join(dir, 'booksync.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const mapping = parseAccountMapping(settingsNow(realmId).TARGET_ACCOUNTS);
    expect(mapping.OperatingBank).toBe(bank?.Id);
    expect(accounts(realmId).find((a) => a.Id === mapping.ProcessorClearing)?.AccountSubType).toBe(
      'UndepositedFunds',
    );

    const again = await setup(realmId);
    expect(again.code).toBe(0);
    expect(again.lines.filter((l) => /^ {2}\w+ +matched /.test(l))).toHaveLength(21);
    expect(again.lines.join('\n')).toContain('every role is matched and');

    // Start-up's check with the mapping the other commands now read.
    const after = await openQuickBooksTarget({
      settings: settingsNow(realmId),
      accounts: mapping,
      logger: silentLogger,
    });
    await expect(after.verify()).resolves.toBeUndefined();

    const written = readFileSync(file, 'utf8');
    const creates = double.all(realmId, 'Account').length;
    const second = await setup(realmId, ['--apply']);
    expect(second.code).toBe(0);
    expect(second.lines.join('\n')).toContain('nothing to change');
    expect(double.all(realmId, 'Account').length).toBe(creates);
    expect(readFileSync(file, 'utf8')).toBe(written);
  });

  it('exits 1 on a conflict, naming it, and creates nothing', async () => {
    const realmId = double.createRealm(undefined, { chart: 'fresh' });
    const folder = path.join(dir, 'conflict');
    const settings = settingsNow(realmId, folder);
    await quickBooksSettings(settings).connection.writeConnection({
      companyId: realmId,
      refreshToken: new TokenCipher(key).seal(double.connect(realmId)),
      connectedAt: new Date().toISOString(),
    });
    // An expense account holding the name booksync gives the operating bank.
    double.seed(realmId, 'Account', { Name: 'Operating Bank', AccountType: 'Expense', Active: true });
    const count = accounts(realmId).length;
    const { code, lines } = await setup(realmId, ['--apply'], folder);
    expect(code).toBe(1);
    expect(lines.join('\n')).toMatch(
      /OperatingBank +CONFLICT +Operating Bank \(\d+\) is Expense, named Operating Bank; OperatingBank requires Bank/,
    );
    expect(accounts(realmId).length).toBe(count);
  });
});
