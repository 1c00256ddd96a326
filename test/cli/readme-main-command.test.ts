import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { freePort } from '../support/free-port.js';
import { chromiumAvailable, launchHeadlessChromium } from '../support/headless-chromium.js';

// Runs the README's main command in a fresh folder, exactly as a newcomer would (the install half is what
// CI itself just did, so node_modules is linked rather than installed again), waits for the demo, checks
// the books, looks at the Temporal UI in a real browser, and stops it all with SIGINT.
const repo = path.resolve('.');
const readme = readFileSync('README.md', 'utf8');
const mainCommand = /^npm install && (npm start)\s+#/m.exec(readme);

/** The card fee booksync expects the emulator to charge (decision “Fees”), for the expected figures. */
const cardFee = (cents: number) => Math.round(cents * 0.029) + 30;

describe("the README's main command", () => {
  let folder: string;
  let child: ChildProcess;
  let output = '';
  let ports: Record<string, number>;

  beforeAll(async () => {
    expect(mainCommand, 'README shows `npm install && npm start`').not.toBeNull();
    folder = mkdtempSync(path.join(os.tmpdir(), 'booksync-main-'));
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
      cwd: repo,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => file && existsSync(path.join(repo, file)));
    for (const file of files) {
      mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      cpSync(path.join(repo, file), path.join(folder, file));
    }
    symlinkSync(path.join(repo, 'node_modules'), path.join(folder, 'node_modules'));
    ports = {
      TEMPORAL_DEV_PORT: await freePort(),
      TEMPORAL_UI_PORT: await freePort(),
      EMULATOR_PORT: await freePort(),
      INGRESS_PORT: await freePort(),
      METRICS_PORT: await freePort(),
    };
    child = spawn('npm', ['start'], {
      cwd: folder,
      env: {
        ...process.env,
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        CI: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 600_000;
    while (!output.includes('each flow in the Temporal UI') && !output.includes('demo failed')) {
      if (child.exitCode !== null) throw new Error(`npm start exited early (${child.exitCode}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`the demo did not finish:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }, 660_000);

  afterAll(async () => {
    try {
      if (child?.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone: the SIGINT test stopped it.
    }
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('runs the demo to the end and prints a balanced trial balance', () => {
    expect(output, output).toContain('demo: a day at Bluebird Bakery');
    expect(output).not.toContain('demo failed');
    expect(output).toMatch(/total\s+\$[\d,.]+\s+\$[\d,.]+\s+balanced/);
  });

  it("ends with the day's month closed: its certificate passes and the ledger is closed through its last day", async () => {
    // A fresh emulator's clock is the machine's: the demo's day is today (UTC, BOOKS_TIME_ZONE's default).
    const today = new Date().toISOString().slice(0, 10);
    const [year, month] = today.split('-').map(Number) as [number, number];
    const monthEnd = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    const nextMonth = new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 10);
    expect(output).not.toContain('stays open');
    expect(output).toContain(`the emulator's clock moved to ${nextMonth}`);
    expect(output).toMatch(/reconciled with the service: [1-9]\d* entries booked/);
    expect(output).toContain(`certificate ${today.slice(0, 8)}01 to ${monthEnd}: PASSES`);
    expect(output).toMatch(/objects [1-9]\d*: \d+ booked, \d+ skipped, 0 missing; entries \d+, orphans 0/);
    expect(output).toContain(`✓ books closed through ${monthEnd}`);
    // The closing comes before the Temporal UI's links: the demo ends once the month is closed.
    expect(output.indexOf('books closed through')).toBeLessThan(
      output.indexOf('each flow in the Temporal UI'),
    );
    const ledger = EmbeddedLedger.open({ path: path.join(folder, '.data', 'ledger.db') });
    try {
      expect(await ledger.booksClosedThrough()).toBe(monthEnd);
      expect((await ledger.booksClosings()).map((c) => [c.through, c.forced, c.reason])).toEqual([
        [monthEnd, false, `certificate of ${today.slice(0, 8)}01 to ${monthEnd} passed`],
      ]);
    } finally {
      ledger.close();
    }
  });

  it('books the day account by account as the mapping table says', async () => {
    const ledger = EmbeddedLedger.open({ path: path.join(folder, '.data', 'ledger.db') });
    try {
      const card = 125_000;
      const refund = 25_000;
      const payout = card - cardFee(card) - refund;
      const cleared = 30_000 + 45_000;
      const bill = 97_500;
      // The seven invoices issued (INV-1001 to INV-1007), booked when booksync learns of each; and the
      // emulator's two seeded invoices (Acme's INV-1001, Globex's INV-1002), which no webhook tells of:
      // reconciliation books them before the month's close.
      const seeded = 125_000 + 48_050;
      const invoiced = 125_000 + 80_000 + 50_000 + 30_000 + 45_000 + 60_000 + 40_000 + seeded;
      const expected: Record<string, number> = {
        [Accounts.OperatingBank]: cleared + payout - bill,
        [Accounts.ProcessorClearing]: card - cardFee(card) - refund + 80_000 - payout,
        [Accounts.ChecksToDeposit]: 20_000,
        // Owed: the invoices and the late fee, less what was paid; the refund reopened INV-1001 by its amount.
        [Accounts.AccountsReceivable]: invoiced + 2_500 + refund - (card + 80_000 + 20_000 + cleared),
        [Accounts.AccountsPayable]: 0,
        [Accounts.OutgoingPaymentsClearing]: 0,
        [Accounts.PayoutsInTransit]: 0,
        [Accounts.Revenue]: -invoiced,
        [Accounts.Refunds]: 0,
        [Accounts.ProcessingFees]: cardFee(card),
        [Accounts.FeeIncome]: -2_500,
        [Accounts.BillExpenses]: bill,
      };
      const balances = Object.fromEntries(
        (await ledger.balances()).map((balance) => [balance.account, balance.balanceCents]),
      );
      for (const [account, cents] of Object.entries(expected)) expect(balances[account], account).toBe(cents);
      // Books a business recognises: receivables owed to it, no payable with a debit balance.
      expect(balances[Accounts.AccountsReceivable]).toBeGreaterThan(0);
      expect(balances[Accounts.AccountsPayable]).toBeLessThanOrEqual(0);
      // And so per document: no invoice overpaid (negative receivable), no bill with a debit payable.
      const receivables = await ledger.openItems('receivable');
      expect(receivables.filter((i) => i.openCents < 0)).toEqual([]);
      expect(receivables.every((i) => i.documentId !== null)).toBe(true);
      expect(receivables.reduce((sum, i) => sum + i.openCents, 0)).toBe(
        balances[Accounts.AccountsReceivable],
      );
      const payables = await ledger.openItems('payable');
      expect(payables.map((i) => i.openCents)).toEqual([0]);
      expect((await ledger.trialBalance()).balanced).toBe(true);
    } finally {
      ledger.close();
    }
  });

  it.runIf(chromiumAvailable)(
    "lists the demo's payments in the Temporal UI, filtered by booksync's search attributes",
    async () => {
      const achPayment = /ACH in its window\s+\S+\/payment-(\S+)/.exec(output)?.[1];
      expect(achPayment).toBeDefined();
      const browser = await launchHeadlessChromium([
        '--disable-quic',
        '--disable-component-update',
        '--disable-sync',
      ]);
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
        const query = 'PaymentMethodType="ACH" AND SyncState="IN_RETURN_WINDOW"';
        await page.goto(
          `http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/namespaces/default/workflows?query=${encodeURIComponent(query)}`,
        );
        await page.getByText(`payment-${achPayment}`).first().waitFor({ timeout: 60_000 });
        // The README's picture: every booksync flow of the demo, listed by a custom search attribute.
        await page.goto(
          `http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/namespaces/default/workflows?query=${encodeURIComponent('SyncState IS NOT NULL')}`,
        );
        await page.getByText('bill-payment-').first().waitFor({ timeout: 60_000 });
        await page.getByText('check-deposit-').first().waitFor({ timeout: 60_000 });
        const screenshot = path.join(repo, 'test', '.artifacts', 'temporal-ui.png');
        mkdirSync(path.dirname(screenshot), { recursive: true });
        await page.screenshot({ path: screenshot });
        if (process.env.BOOKSYNC_UPDATE_SCREENSHOT)
          cpSync(screenshot, path.join(repo, 'docs', 'temporal-ui.png'));
      } finally {
        await browser.close();
      }
    },
    120_000,
  );

  it('stops on SIGINT, leaving no process behind', async () => {
    // npm start's tree: npm, its shell, booksync's node and the Temporal dev server (own process group).
    // Every one of them runs in, or names, the temporary folder.
    const tree = () =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) => {
          try {
            const cwd = readlinkSync(`/proc/${pid}/cwd`);
            const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
            return cwd.startsWith(folder) || args.includes(folder);
          } catch {
            return false; // gone meanwhile, or not ours to read
          }
        });
    expect(tree().length).toBeGreaterThan(0);
    // 'close' fires once every process holding npm's stdout (booksync's node included) has exited, so the
    // ordered shutdown has run to its end, not just npm's own quick exit.
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    process.kill(-child.pid!, 'SIGINT');
    await closed;
    expect(output).toMatch(/"msg":"stopped"/);
    const deadline = Date.now() + 20_000;
    while (tree().length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 250));
    expect(tree()).toEqual([]);
  }, 60_000);
});
