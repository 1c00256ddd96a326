import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FaultError } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloseCertificate } from '../../src/close/certificate.js';
import type { BackfillProgress } from '../../src/flows/backfill/contract.js';
import type { TargetSummary } from '../../src/flows/push/target-index.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { dayInZone } from '../../src/ledger/mapping/dates.js';
import type { PayoutReport } from '../../src/payouts/report-schema.js';
import type { LedgerStore } from '../../src/runtime/ledger-store.js';
import type { CliRun } from './booksync-cli.js';
import { freePort } from './free-port.js';
import { ThreeTargets } from './three-targets.js';

// The combination suite, written once for both ledger stores (test/e2e/combinations-sqlite.test.ts and
// combinations-postgres.test.ts, two files so vitest runs them side by side). Every CLI command (`backfill`,
// `deposit`, `link`, `reconcile`, `payout`, `targets status/retry`, `resync`, `close`) runs as a business runs
// it, a `node bin/booksync.js` process beside the real `booksync start`, and each result is checked in what it
// prints, in the ledger and at every target, not only by its exit code.
//
// Why this shape (CI stays under 40 minutes: the suite's budget is a few minutes on 2 cores):
// - The expensive combinations run once per store: ONE `booksync start` with all three targets at once
//   (ACCOUNTING_TARGET=tryton,quickbooks,xero: a real Tryton on PostgreSQL, the QuickBooks and Xero doubles
//   connected by consent). Every entry a command makes must reach all three, so one stack checks each command
//   against each target. Tryton, the doubles and (PostgreSQL) the ledger's database start in parallel; the
//   ledger's database lives in Tryton's own PostgreSQL cluster, one cluster fewer.
// - No target is the cheap combination, checked per command where the behaviour differs: a second
//   `booksync worker` with ACCOUNTING_TARGET unset, on a task queue of its own, on the same Temporal, service
//   and ledger (no second Temporal, emulator or ingress). `close` and `resync` run on it (a certificate with
//   no target section, no push, no figures) and `targets status` refuses. The other commands' results do not
//   depend on a target (`payout` and `backfill` read the service and the ledger; `deposit`, `link` and
//   `reconcile` go through the ingress and the one `reconcile` requests workflow): their ledger side is
//   checked once above, as each CLI run costs seconds of CPU (tsx compiles the command line at each start).
//   The second worker starts last: it re-points the Schedules at its own queue (the last start-up wins).
// - backfill opens the books once, on a day: the history before it is made by `booksync emulator` alone on the
//   data folder (no ingress, no worker: nothing booked), the emulator's clock moved a day on, then
//   `booksync start --no-demo` (the demo would book before the opening) and `backfill --since` that day first.
// - No fixed sleeps: every wait polls the ledger or the target index in-process (cheaper than a CLI per poll);
//   the commands themselves are the CLI. The two consents and the history are made side by side.
// - Order: backfill first (the books open once), `link` after the other commands that make invoices. The
//   emulator's clock is a day ahead of the worker's, so an invoice booksync first hears of is dated the
//   worker's day, the day before the debit memo's; Tryton numbers customer invoices only in date order and
//   refuses an invoice dated before one it numbered ("To number the invoice ..., you must set an invoice date
//   after ..."), a booksync bug this suite found (any invoice dated before the last numbered one, e.g. a
//   `link record-payment --paid-at` an earlier day on a link not booked yet).
// - targets retry: the refusal is QuickBooks' one-off fault. A refusal Xero answers is replayed for the same
//   Idempotency-Key, and booksync derives the key from the document alone, so after a Xero refusal `targets
//   retry` is refused again with the same body: a booksync bug this suite found.
//

export type LedgerKind = 'sqlite' | 'postgres';

const zone = 'UTC';

export function describeCombinations(kind: LedgerKind): void {
  const stack = new ThreeTargets(`combinations-${kind}`);
  const { qbo, booksync } = stack;
  let store: LedgerStore;
  let opensOn: string;
  let noTargetWorker: ChildProcess | null = null;
  const ids: Record<string, string> = {};
  const lap = (what: string) => stack.lap(what);
  const apiKey = () => stack.apiKey();
  const sandbox = () => stack.sandbox();
  const cli = (args: string[], code = 0, extra: NodeJS.ProcessEnv = {}) => stack.cli(args, code, extra);
  const json = <T>(run: CliRun): T => JSON.parse(run.stdout) as T;
  const entries = () => stack.entries();
  const untilBooked = (what: string, pick: (e: BookedEntry) => boolean) => stack.untilBooked(what, pick);
  const untilAllPushed = () => stack.untilAllPushed();

  const expectAtEveryTarget = (keys: readonly string[]) => stack.expectAtEveryTarget(keys);

  const today = async () => dayInZone(Date.parse((await sandbox().clock()).now), zone);

  /**
   * The history before the books open, made by the emulator alone on the data folder (nothing listens for its
   * webhooks, nothing is booked); then its clock is moved a day on, to the day the books open.
   */
  async function makeHistory(): Promise<void> {
    const emulator = spawn(process.execPath, [path.resolve('bin/booksync.js'), 'emulator'], {
      env: booksync.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let said = '';
    emulator.stdout?.on('data', (c: Buffer) => {
      said += c.toString();
    });
    emulator.stderr?.on('data', (c: Buffer) => {
      said += c.toString();
    });
    const gone = new Promise((resolve) => emulator.once('exit', resolve));
    try {
      for (const deadline = Date.now() + 60_000; !said.includes('emulator listening'); await sleep(100)) {
        if (Date.now() > deadline || emulator.exitCode !== null) throw new Error(`no emulator:\n${said}`);
      }
      const service = booksync.service();
      const box = sandbox();
      const link = (name: string, cents: number) =>
        service.createPaymentLink({ name, requestedAmountCents: cents }).then((l) => l.id);
      // A: paid by card and paid out to the bank before the opening: settled, not imported.
      ids.settled = await link('OLD-SETTLED', 100_00);
      await box.settlePayment((await box.payLink(ids.settled, 'Card')).id);
      const oldPayout = await box.batchDisbursement();
      await box.succeedDisbursement(oldPayout.id);
      // B: paid by card, settled, not paid out yet: its 48.25 is in flight, the opening entry's.
      ids.inFlight = await link('OLD-IN-FLIGHT', 50_00);
      ids.inFlightPayment = (await box.payLink(ids.inFlight, 'Card')).id;
      await box.settlePayment(ids.inFlightPayment);
      // C: still owed: imported whole.
      ids.owed = await link('OLD-OWED', 80_00);
      opensOn = dayInZone(Date.parse((await box.advanceClock({ days: 1 })).now), zone);
    } finally {
      if (emulator.pid) process.kill(-emulator.pid, 'SIGINT');
      await Promise.race([gone, sleep(10_000)]);
      if (emulator.pid && emulator.exitCode === null) process.kill(-emulator.pid, 'SIGKILL');
    }
  }

  beforeAll(async () => {
    // The history before the books open is made beside the consents (separate processes and files).
    await stack.up({ ledger: kind, beside: makeHistory });
    ({ store } = stack);
  }, 600_000);

  afterAll(async () => {
    if (noTargetWorker?.pid) {
      try {
        process.kill(-noTargetWorker.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await stack.down();
  }, 120_000);

  describe(`every command on the ${kind} ledger, with Tryton, QuickBooks and Xero at once`, {
    timeout: 300_000,
  }, () => {
    it('backfill: opens the books on its day with the money in flight, imports what is still owed', async () => {
      expect(booksync.output).not.toContain('demo failed');
      expect(await entries()).toEqual([]);
      const run = await cli(['backfill', '--since', opensOn, '--json']);
      const progress = json<BackfillProgress>(run);
      expect(progress).toMatchObject({ since: opensOn, mode: 'opening', problems: [] });
      expect(progress.openingEntryKey).toBe(`opening-balances:${opensOn}`);
      expect(Object.entries(progress.inFlight).filter(([, cents]) => cents !== 0)).toEqual([
        [Accounts.ProcessorClearing, 48_25],
      ]);
      const all = await entries();
      const opening = all.find((e) => e.key === progress.openingEntryKey);
      expect(opening?.lines.map((l) => [l.account, l.amountCents]).sort()).toEqual(
        [
          [Accounts.OpeningBalances, -48_25],
          [Accounts.ProcessorClearing, 48_25],
        ].sort(),
      );
      expect((opening?.date ?? opensOn) < opensOn).toBe(true);
      // Imported: the link still owed, with its invoice; settled ones left out (their money is the opening's).
      const linked = (id: string) => all.filter((e) => e.links.paymentLinkId === id);
      expect(linked(ids.owed as string).map((e) => e.key)).toEqual([`invoice:${ids.owed}`]);
      expect(linked(ids.settled as string)).toEqual([]);
      expect(linked(ids.inFlight as string)).toEqual([]);
      expect(progress.imported).toBeGreaterThanOrEqual(1);
      expect(progress.settled).toBeGreaterThanOrEqual(2);
      expect(await store.ledger.booksOpenOn()).toBe(opensOn);
      await untilAllPushed();
      await expectAtEveryTarget([progress.openingEntryKey as string, `invoice:${ids.owed}`]);
      lap('backfill checked');
    });

    it('deposit apply: the application is at the service, in the ledger and at every target', async () => {
      const service = booksync.service();
      const box = sandbox();
      ids.checkLink = (
        await service.createPaymentLink({ name: 'CHECK-LINK', requestedAmountCents: 400_00 })
      ).id;
      const check = await box.depositCheck(400_00, 'combinations check #7');
      ids.check = check.id;
      const run = await cli(['deposit', 'apply', check.id, ids.checkLink, '--json']);
      expect(run.stdout).toContain(ids.checkLink);
      expect((await service.getCheckDeposit(check.id)).applications).toHaveLength(1);
      const booked = await untilBooked(
        'the check application',
        (e) => e.key.startsWith('check-application:') && e.links.paymentLinkId === ids.checkLink,
      );
      const show = await cli(['deposit', 'show', check.id]);
      expect(show.stdout).toContain(ids.checkLink);
      await untilAllPushed();
      await expectAtEveryTarget(booked.map((e) => e.key));
      lap('deposit checked');
    });

    it('reconcile --all: books a link no webhook told about, and it reaches every target', async () => {
      ids.silent = (
        await booksync.service().createPaymentLink({ name: 'NO-WEBHOOK', requestedAmountCents: 70_00 })
      ).id;
      const run = await cli(['reconcile', '--all', '--json']);
      const { report } = json<{
        report: { fixesTotal: number; problems: unknown[]; fixed: { posted: Record<string, number> } };
      }>(run);
      expect(report.problems).toEqual([]);
      expect(report.fixesTotal).toBeGreaterThanOrEqual(1);
      expect(
        (await store.ledger.get(`invoice:${ids.silent}`))?.lines.find(
          (l) => l.account === Accounts.AccountsReceivable,
        )?.amountCents,
      ).toBe(70_00);
      await untilAllPushed();
      await expectAtEveryTarget([`invoice:${ids.silent}`]);
      lap('reconcile checked');
    });

    it('payout show and list: the report lists the payout payments, and its entries reach every target', async () => {
      const box = sandbox();
      ids.card = (
        await booksync.service().createPaymentLink({ name: 'CARD-PAID', requestedAmountCents: 200_00 })
      ).id;
      const payment = await box.payLink(ids.card, 'Card');
      await box.settlePayment(payment.id);
      await untilBooked('the card payment', (e) => e.key === `payment:${payment.id}`);
      const payout = await box.batchDisbursement();
      ids.payout = payout.id;
      await box.succeedDisbursement(payout.id);
      const booked = await untilBooked(
        'the payout',
        (e) => e.links.disbursementId === payout.id && e.key.startsWith('disbursement-'),
      );
      const report = json<PayoutReport>(await cli(['payout', 'show', payout.id, '--json']));
      expect(report.disbursementId).toBe(payout.id);
      // The payout carries the card payment of today and the one settled before the books opened.
      expect(report.payments.map((p) => p.paymentId).sort()).toEqual(
        [payment.id, ids.inFlightPayment].sort(),
      );
      expect(report.amountCents).toBe(payout.amountInCents);
      const list = await cli(['payout', 'list', '--from', opensOn, '--to', await today()]);
      expect(list.stdout).toContain(payout.id);
      await untilAllPushed();
      await expectAtEveryTarget([`payment:${payment.id}`, ...booked.map((e) => e.key)]);
      lap('payout checked');
    });

    it('targets retry --failed: an entry QuickBooks refused is pushed again and is PUSHED at every target', async () => {
      // A one-off refusal of the next write (QuickBooks' own refusals are replayed for the same requestid, and
      // so are Xero's for the same Idempotency-Key: see the report of the suite).
      qbo.failNext(
        new FaultError(400, 'ValidationFault', 'Business Validation Error', 'Account is inactive.', '6000'),
      );
      ids.refused = (
        await booksync.service().createPaymentLink({ name: 'REFUSED-ONCE', requestedAmountCents: 30_00 })
      ).id;
      await cli(['link', 'record-payment', ids.refused, '--amount', '3000', '--paid-at', await today()]);
      const deadline = Date.now() + 120_000;
      let summary = await store.targetIndex.summary('quickbooks');
      while (summary.failed === 0 && Date.now() < deadline) {
        await sleep(300);
        summary = await store.targetIndex.summary('quickbooks');
      }
      expect(summary.failures.map((f) => f.reason)).toEqual([
        expect.stringContaining('Account is inactive.'),
      ]);
      const failedKey = summary.failures[0]?.key as string;
      const status = await cli(['targets', 'status'], 1);
      expect(status.stdout).toContain(`FAILED ${failedKey}`);
      const retry = await cli(['targets', 'retry', '--failed', '--target', 'quickbooks', '--wait', '60']);
      expect(retry.stdout).toContain(`${failedKey}: PUSHED`);
      await untilAllPushed();
      await expectAtEveryTarget([failedKey]);
      lap('retry checked');
    });

    it('link: record-payment, debit-memo and a lowered amount synced change the link and reach every target', async () => {
      const service = booksync.service();
      const day = await today();
      ids.link = (
        await service.createPaymentLink({
          name: 'LINK-CMDS',
          requestedAmountCents: 900_00,
          amountEditable: true,
        })
      ).id;
      const paid = await cli([
        'link',
        'record-payment',
        ids.link,
        '--amount',
        '10000',
        '--paid-at',
        day,
        '--reference',
        'wire-26',
      ]);
      expect(paid.stdout).toContain(`${ids.link} owes $800.00`);
      const memo = await cli([
        'link',
        'debit-memo',
        ids.link,
        '--amount',
        '1500',
        '--description',
        'late fee',
      ]);
      expect(memo.stdout).toContain(ids.link);
      const atService = await service.getPaymentLink(ids.link);
      expect(atService.externalPayments.map((p) => p.amountCents)).toEqual([100_00]);
      expect(atService.debitMemos.map((m) => m.amountCents)).toEqual([15_00]);
      await service.updatePaymentLink(ids.link, { requestedAmountCents: 600_00 });
      const synced = await cli(['link', 'sync', ids.link]);
      expect(synced.stdout).toContain('fetches the link');
      const booked = await untilBooked('the lowering', (e) =>
        e.key.startsWith(`invoice-adjustment:${ids.link}`),
      );
      const all = await entries();
      const keys = all.filter((e) => e.links.paymentLinkId === ids.link).map((e) => e.key);
      expect(keys).toEqual(
        expect.arrayContaining([
          `invoice:${ids.link}`,
          expect.stringMatching(/^external-payment:/),
          expect.stringMatching(/^debit-memo:/),
          booked[0]?.key,
        ]),
      );
      const open = new Map(
        (await store.ledger.openItems('receivable')).map((i) => [i.documentId, i.openCents]),
      );
      // 900.00 lowered to 600.00, plus the 15.00 memo, less the 100.00 received.
      expect(open.get(ids.link)).toBe(515_00);
      const show = json<{ completedAmountCents: number }>(await cli(['link', 'show', ids.link, '--json']));
      expect(show.completedAmountCents).toBe(100_00);
      await untilAllPushed();
      await expectAtEveryTarget(keys);
      lap('link checked');
    });

    it('resync: --dry-run finds no difference, --apply writes nothing', async () => {
      const before = (await entries()).length;
      const dry = json<{
        applied: boolean;
        diff: { toReverse: unknown[]; toPost: unknown[]; unmappable: unknown[] };
      }>(await cli(['resync', '--dry-run', '--json']));
      expect([dry.applied, dry.diff.toReverse, dry.diff.toPost, dry.diff.unmappable]).toEqual([
        false,
        [],
        [],
        [],
      ]);
      const apply = json<{ applied: boolean; reversed: string[]; posted: string[] }>(
        await cli(['resync', '--apply', '--json']),
      );
      expect([apply.applied, apply.reversed, apply.posted]).toEqual([true, [], []]);
      expect((await entries()).length).toBe(before);
      lap('resync checked');
    });

    it('close --from --to: the certificate passes, every entry pushed, each target compared on its own figures', async () => {
      const pushed = await untilAllPushed();
      // What the operator reads before a close: the three targets, nothing pending or failed.
      const status = json<{ targets: TargetSummary[] }>(await cli(['targets', 'status', '--json']));
      expect(status.targets).toEqual(pushed);
      const run = await cli(['close', '--from', opensOn, '--to', await today(), '--json']);
      const certificate = json<CloseCertificate>(run);
      expect(certificate.problems).toEqual([]);
      expect(certificate.passes).toBe(true);
      // Each target's own figures, read from it, agree with the ledger's.
      expect(certificate.targetFigures?.map((t) => [t.target, t.ok]).sort()).toEqual([
        ['quickbooks', true],
        ['tryton', true],
        ['xero', true],
      ]);
      lap('close checked');
    });

    it('no target: close and resync on a worker without targets; targets status refuses', async () => {
      const port = await freePort();
      const queue = `combinations-no-target-${kind}`;
      const env = {
        ...booksync.env,
        ACCOUNTING_TARGET: '',
        TEMPORAL_ADDRESS: booksync.temporalAddress,
        TEMPORAL_TASK_QUEUE: queue,
        SERVICE_BASE_URL: `http://127.0.0.1:${booksync.env.EMULATOR_PORT}`,
        SERVICE_API_KEY: apiKey(),
        METRICS_PORT: String(port),
        LOG_LEVEL: 'warn',
      };
      noTargetWorker = spawn(process.execPath, [path.resolve('bin/booksync.js'), 'worker'], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      });
      let said = '';
      noTargetWorker.stderr?.on('data', (c: Buffer) => {
        said += c.toString();
      });
      for (const deadline = Date.now() + 120_000; ; await sleep(250)) {
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ready) break;
        if (Date.now() > deadline || noTargetWorker.exitCode !== null) throw new Error(`no worker:\n${said}`);
      }
      lap('no-target worker up');
      const none = { ACCOUNTING_TARGET: '', TEMPORAL_TASK_QUEUE: queue };
      const refused = await cli(['targets', 'status', '--json'], 1, none);
      expect(refused.stderr).toContain('no accounting target');

      const certificate = json<CloseCertificate>(
        await cli(['close', '--from', opensOn, '--to', await today(), '--json'], 0, none),
      );
      expect(certificate.problems).toEqual([]);
      expect(certificate.passes).toBe(true);
      expect(certificate.targetFigures ?? null).toBeNull();
      expect(JSON.stringify(certificate)).not.toMatch(/quickbooks|xero|tryton/);

      const dry = json<{ diff: { toReverse: unknown[]; toPost: unknown[] } }>(
        await cli(['resync', '--dry-run', '--json'], 0, none),
      );
      expect([dry.diff.toReverse, dry.diff.toPost]).toEqual([[], []]);

      lap('no target checked');
    });
  });
}
