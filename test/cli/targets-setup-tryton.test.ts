import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTarget } from '../../src/cli/commands/targets-setup.js';
import { loadEnvFile } from '../../src/config/env-file.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { silentLogger } from '../../src/logging/logger.js';
import { parseAccountMapping } from '../../src/targets/account-mapping.js';
import { startTryton, type TrytonServer, trytonTarget } from '../support/tryton.js';
import { useOwnChart } from '../support/tryton-own-chart.js';

// `booksync targets setup tryton` on a real Tryton 8.2 whose company's chart is Tryton's own (the Create Chart
// wizard on the account module's Universal Chart of Accounts), not booksync's: the plan, --apply creating
// what is missing and writing TARGET_ACCOUNTS to the settings file, start-up's verify() passing with that
// mapping, a second --apply changing nothing; and verify() refusing a role mapped to an account of the
// wrong kind, naming the role.

let tryton: TrytonServer;
let dir: string;

beforeAll(async () => {
  tryton = await startTryton({ queue: false });
  await useOwnChart(tryton);
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-setup-tryton-'));
}, 600_000);
afterAll(async () => {
  await tryton?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The settings a command in another terminal reads: the environment over BOOKSYNC_DATA_DIR/booksync.env. */
function settingsNow(folder = dir, extra: NodeJS.ProcessEnv = {}): Settings {
  const env: NodeJS.ProcessEnv = {
    BOOKSYNC_DATA_DIR: folder,
    TRYTON_URL: tryton.url,
    TRYTON_DATABASE: tryton.database,
    TRYTON_USER: tryton.username,
    TRYTON_PASSWORD: tryton.password,
    ...extra,
  };
  loadEnvFile(env);
  return loadSettings(env);
}

async function setup(args: string[] = [], settings = settingsNow()): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await setupTarget({
    args: ['tryton', ...args],
    settings,
    logger: silentLogger,
    out: (line) => lines.push(line),
  });
  return { code, text: lines.join('\n') };
}

const accountCount = async () =>
  (await tryton.rpc.model<number[]>('account.account', 'search', [], 0, null, null)).length;

async function accountByCode(code: string) {
  const [account] = await tryton.rpc.searchRead<{
    name: string;
    type: number;
    reconcile: boolean;
    party_required: boolean;
  }>('account.account', [['code', '=', code]], ['name', 'type', 'reconcile', 'party_required']);
  if (!account) return undefined;
  const [type] = await tryton.rpc.model<{ name: string; revenue: boolean; expense: boolean }[]>(
    'account.account.type',
    'read',
    [account.type],
    ['name', 'revenue', 'expense'],
  );
  return { ...account, type };
}

describe("booksync targets setup tryton on a company with Tryton's own chart", () => {
  it('plans, creates what is missing, writes the mapping verify() accepts, and is idempotent', async () => {
    // Before: booksync's default codes are nowhere in Tryton's chart, so start-up would stop.
    await expect(trytonTarget(tryton).verify()).rejects.toThrow(
      /account 1010 \(OperatingBank\) is not in Tryton's chart of accounts/,
    );
    const before = await accountCount();
    // A database without the Miscellaneous journal and without payment terms (a business deleted them).
    const misc = await tryton.rpc.model<number[]>(
      'account.journal',
      'search',
      [['code', '=', 'MISC']],
      0,
      null,
      null,
    );
    await tryton.rpc.model('account.journal', 'delete', misc);
    const terms = await tryton.rpc.model<number[]>(
      'account.invoice.payment_term',
      'search',
      [],
      0,
      null,
      null,
    );
    await tryton.rpc.model('account.invoice.payment_term', 'delete', terms);

    const plan = await setup();
    expect(plan.code).toBe(0);
    expect(plan.text).toMatch(
      /OperatingBank +matched +Cash and Cash Equivalents \(1\.1\.1, type Cash and Cash Equivalents \(balance\)\): Tryton's chart template's account/,
    );
    expect(plan.text).toMatch(
      /AccountsReceivable +matched +Accounts, Notes And Loans Receivable \(1\.2\.1, type Accounts receivable \(balance; receivable, assets\), reconcile, party required\)/,
    );
    expect(plan.text).toMatch(/AccountsPayable +matched +Trade Payables \(2\.1\.1, /);
    // Tryton's heading named Revenue (4.0.0, no type) is passed over: the role's account is to be created.
    expect(plan.text).toMatch(/Revenue +to create Revenue \(code 4000, type Revenue \(income; revenue\)\)/);
    expect(plan.text).toMatch(
      /BillExpenses +to create Bill Expenses \(code 6020, type [^)]*\(income; expense\)\)/,
    );
    // Tryton's own journals REV and EXP are there; MISC and the payment terms were deleted.
    expect(plan.text).not.toMatch(/journal (REV|EXP)/);
    expect(plan.text).toContain('journal MISC missing: to create Miscellaneous (type general)');
    expect(plan.text).toContain('no invoice payment term: to create Due on receipt');
    expect(plan.text).toContain(
      '18 accounts and 2 journals or payment terms to create: run again with --apply',
    );
    expect(await accountCount()).toBe(before);

    const applied = await setup(['--apply']);
    expect(applied.text).toContain('every role maps to an account of the type it needs: booksync can start');
    expect(applied.code).toBe(0);
    expect(await accountCount()).toBe(before + 18);
    expect(await accountByCode('4000')).toMatchObject({
      name: 'Revenue',
      type: { revenue: true },
      party_required: false,
    });
    expect(await accountByCode('6020')).toMatchObject({ name: 'Bill Expenses', type: { expense: true } });
    expect(await accountByCode('1020')).toMatchObject({
      name: 'Processor Clearing',
      type: { name: 'Current Assets' },
    });
    expect(await tryton.rpc.searchRead('account.invoice.payment_term', [], ['name'])).toEqual([
      expect.objectContaining({ name: 'Due on receipt' }),
    ]);
    expect(await tryton.rpc.searchRead('account.journal', [['code', '=', 'MISC']], ['type'])).toEqual([
      expect.objectContaining({ type: 'general' }),
    ]);
    const mapping = parseAccountMapping(settingsNow().TARGET_ACCOUNTS);
    expect(mapping).toMatchObject({
      OperatingBank: '1.1.1',
      AccountsReceivable: '1.2.1',
      AccountsPayable: '2.1.1',
      ProcessorClearing: '1020',
      Revenue: '4000',
    });

    const again = await setup();
    expect(again.code).toBe(0);
    expect(again.text.split('\n').filter((l) => /^ {2}\w+ +matched /.test(l))).toHaveLength(21);
    expect(again.text).toContain('every role is matched and');
    expect(again.text).not.toContain('to create');

    // Start-up's check with the mapping the other commands now read.
    await expect(trytonTarget(tryton, { accounts: mapping }).verify()).resolves.toBeUndefined();

    const file = path.join(dir, 'booksync.env');
    const written = readFileSync(file, 'utf8');
    const count = await accountCount();
    const second = await setup(['--apply']);
    expect(second.code).toBe(0);
    expect(second.text).toContain('nothing to change');
    expect(second.text).not.toMatch(/created|to create/);
    expect(await accountCount()).toBe(count);
    expect(readFileSync(file, 'utf8')).toBe(written);
  });

  it('verify() refuses a role mapped to an account of the wrong kind, naming the role', async () => {
    const mapping = parseAccountMapping(settingsNow().TARGET_ACCOUNTS);
    // 5.2.1 Cost Of Sales is an expense account; 1.1.1 is cash, neither reconciled nor with a party.
    const wrong = { ...mapping, Revenue: '5.2.1', AccountsReceivable: '1.1.1', OperatingBank: '1.1.2' };
    const failure = await trytonTarget(tryton, { accounts: wrong })
      .verify()
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(failure?.name).toBe('TargetConfigurationError');
    expect(failure?.message).toMatch(
      /Revenue: Tryton account 5\.2\.1 Cost Of Sales is type Cost of Sales \(income; expense\) \(its type .* does not fit\); Revenue requires a type flagged revenue/,
    );
    expect(failure?.message).toMatch(
      /AccountsReceivable: Tryton account 1\.1\.1 Cash and Cash Equivalents .*it is not reconciled; it requires no party\); AccountsReceivable requires a type flagged receivable, reconcile and party required/,
    );
    // An asset account of the balance sheet fits the operating bank.
    expect(failure?.message).not.toContain('OperatingBank');

    // The setup under that mapping names the conflict and creates nothing.
    const folder = path.join(dir, 'wrong');
    const count = await accountCount();
    const { code, text } = await setup(
      ['--apply'],
      settingsNow(folder, {
        TARGET_ACCOUNTS: Object.entries(wrong)
          .map(([role, c]) => `${role}=${c}`)
          .join(','),
      }),
    );
    expect(code).toBe(1);
    expect(text).toMatch(
      /Revenue +CONFLICT +Cost Of Sales \(5\.2\.1\) is type Cost of Sales .*; Revenue requires a type flagged revenue/,
    );
    expect(await accountCount()).toBe(count);
  });
});
