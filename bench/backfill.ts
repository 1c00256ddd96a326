import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOrganization } from '@booksync/emulator/auth/organizations';
import { heldBalanceCents } from '@booksync/emulator/domain/balance';
import { batchDisbursement, settleDisbursement } from '@booksync/emulator/domain/disbursements';
import { createPaymentLink } from '@booksync/emulator/domain/payment-links';
import { payPaymentLink, settlePayment } from '@booksync/emulator/domain/payments';
import { createEmulator } from '@booksync/emulator/server';
import { Store } from '@booksync/emulator/store/store';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../src/flows/activities.js';
import {
  type BackfillProgress,
  backfillPhases,
  backfillProgressQuery,
  backfillWorkflowId,
  backfillWorkflowType,
} from '../src/flows/backfill/contract.js';
import { Accounts } from '../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../src/ledger/embedded-ledger.js';
import { createLogger } from '../src/logging/logger.js';
import { openLedgerStore } from '../src/runtime/ledger-store.js';
import { booksyncWorkflowWorkerOptions } from '../src/runtime/worker/booksync-worker.js';
import { cachedWorkflowBundle } from '../src/runtime/worker/workflow-bundle.js';
import { ServiceClient } from '../src/service/client.js';
import { startDevServer } from '../test/support/temporal.js';
import { type BenchChild, childInput, serveParent, startChild } from './child.js';
import { onInterrupt } from './interrupt.js';
import { ownMemoryMiB, type ProcWindow, sampleProc } from './proc-stats.js';

// Stage backfill: `booksync backfill --since` over N card payments, each on its own payment link and
// settled, with a payout every 5,000 payments (all SUCCEEDED but the last, still PENDING; the payments after
// it are not paid out). `since` is the day before the first payment: the worst case, every group imported
// whole and every entry written. The emulator (SQLite file, seeded through its domain functions; seeding is
// not measured) and booksync's worker (real activities, EmbeddedLedger file as `booksync worker` opens it,
// the cached workflow bundle) run in child processes of their own; this file is the entry of both (role).
// Baseline, same run, same emulator: the project's ServiceClient walks every page (100) of the four listings
// the backfill walks and GETs every payment by id, one request at a time as the backfill's pages go.
// Figures: objects/s of each over the same objects (the service's totals), their ratio (goal ≥ 0.5), the
// worker's peak RSS. The books are checked afterwards; a wrong backfill fails the stage.

export interface BackfillBenchOptions {
  payments: number;
  /** A payout every this many payments (the last one PENDING). */
  payoutEvery: number;
  /** The worker's backfill writes each entry in its own transaction (backfillPageWrites, for a before/after). */
  oneByOne: boolean;
  profile?: string | undefined;
  progress: (line: string) => void;
}

interface Seeded {
  payments: number;
  payouts: number;
  /** Net (amount less the absorbed card fee) of the payments no payout took: what the service holds. */
  undisbursedCents: number;
  /** The last payout, still PENDING: on its way to the bank. */
  inTransitCents: number;
  revenueCents: number;
  feesCents: number;
  /** The emulator's own held balance, for a second opinion on undisbursedCents. */
  heldBalanceCents: number;
  /** YYYY-MM-DD (the emulator's clock) of the first payment. */
  firstDay: string;
  today: string;
  seedSeconds: number;
}

interface EmulatorReady extends Seeded {
  emulatorUrl: string;
  apiKey: string;
}

export interface BareWalk {
  seconds: number;
  /** Objects the four listings returned (links + payments + disbursements + deposits). */
  listed: number;
  listRequests: number;
  gets: number;
  /** listed / seconds (list and get): the baseline. */
  objectsPerSecond: number;
  /** The listing alone, before the GETs (a second, stricter baseline: the backfill GETs nothing). */
  listSeconds: number;
  listOnlyObjectsPerSecond: number;
}

export interface BackfillRun {
  seconds: number;
  /** What the service listed in the four listings (the workflow's totals): the same objects as the walk. */
  listed: number;
  /** Objects the backfill classified (a payment on a link comes with its link, so it is not counted twice). */
  examined: Record<string, number>;
  examinedTotal: number;
  /** listed / seconds: the figure beside the baseline's. */
  objectsPerSecond: number;
  examinedPerSecond: number;
  imported: number;
  settled: number;
  requests: number;
  pages: number;
  problems: number;
  entriesWritten: number;
  linesWritten: number;
  entriesPerSecond: number;
}

export interface BackfillBenchResult {
  seeded: Seeded;
  /** true: BENCH_BACKFILL_ONE_BY_ONE, the page's entries written one transaction each, as before batching. */
  oneByOne: boolean;
  since: string;
  bare: BareWalk;
  backfill: BackfillRun;
  /** backfill objects/s ÷ bare list-and-get objects/s (goal ≥ 0.5). */
  ratio: number;
  goal: number;
  /** backfill objects/s ÷ bare list-only objects/s. */
  listOnlyRatio: number;
  worker: ProcWindow;
  /** Highest RSS of the worker over its life (start-up included: VmHWM). */
  workerPeakRssMiB: number;
  /**
   * Where the worker's time went: seconds inside backfillPages by the phase each step starts in, and inside the (timed) service
   * client and ledger methods, summed over calls (the rest of the wall time is Temporal's round trips).
   */
  workerTimings: Record<string, { calls: number; seconds: number }>;
  /** process.memoryUsage() of the worker when the backfill is done (its workflow thread's heap is in RSS only). */
  workerMemoryAtEnd: Record<string, number>;
  /** The machine's 1-minute load average around the timed backfill (2 cores: above 2, something else ran). */
  loadAverage1m: { atStart: number; atEnd: number };
  emulatorProcess: ProcWindow;
  books: {
    balanced: boolean;
    processorClearingCents: number;
    payoutsInTransitCents: number;
    revenueCents: number;
    processingFeesCents: number;
  };
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

// ---------------------------------------------------------------------------------------------------------
// Parent: the stage.

export async function benchBackfill(options: BackfillBenchOptions): Promise<BackfillBenchResult> {
  const say = (line: string) => options.progress(`backfill: ${line}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'booksync-bench-backfill-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) {
      await Promise.resolve(step()).catch((error) => say(`cleanup: ${String(error)}`));
    }
  };
  const forget = onInterrupt(cleanup);
  try {
    say(`seeding ${options.payments.toLocaleString('en-US')} settled card payments (not measured)`);
    const emulator: BenchChild<EmulatorReady> = await startChild<EmulatorReady>(
      'backfill.ts',
      {
        role: 'emulator',
        dbPath: path.join(dir, 'emulator.db'),
        payments: options.payments,
        payoutEvery: options.payoutEvery,
      },
      {
        profile: options.profile ? `${options.profile}-emulator` : undefined,
        startTimeoutMs: 30 * 60_000,
      },
    );
    cleanups.push(() => emulator.stop());
    const { emulatorUrl, apiKey, ...seeded } = emulator.ready;
    const seededFigures: Seeded = {
      payments: seeded.payments,
      payouts: seeded.payouts,
      undisbursedCents: seeded.undisbursedCents,
      inTransitCents: seeded.inTransitCents,
      revenueCents: seeded.revenueCents,
      feesCents: seeded.feesCents,
      heldBalanceCents: seeded.heldBalanceCents,
      firstDay: seeded.firstDay,
      today: seeded.today,
      seedSeconds: seeded.seedSeconds,
    };
    say(
      `seeded in ${seeded.seedSeconds} s: ${seeded.payouts} payouts, held ${seeded.heldBalanceCents} cents`,
    );
    if (seeded.heldBalanceCents !== seeded.undisbursedCents) {
      throw new Error(
        `seeding: the emulator holds ${seeded.heldBalanceCents} cents, the seeded amounts say ${seeded.undisbursedCents}`,
      );
    }

    // Both the bundle and the dev server before anything is timed.
    const [{ codePath: bundlePath }, env] = await Promise.all([cachedWorkflowBundle(), startDevServer()]);
    cleanups.push(() => env.teardown());

    say('baseline: ServiceClient walks the four listings (page size 100) and GETs every payment');
    const service = new ServiceClient({ baseUrl: emulatorUrl, apiKey });
    const emulatorSampler = sampleProc(emulator.pid);
    const bare = await bareWalk(service);
    say(
      `baseline: ${bare.listed} objects listed in ${bare.listSeconds} s, ${bare.gets} GETs, ${bare.seconds} s in all = ${bare.objectsPerSecond}/s`,
    );

    const taskQueue = `bench-backfill-${process.pid}`;
    const ledgerPath = path.join(dir, 'ledger.db');
    const worker = await startChild<{ type: 'ready' }>(
      'backfill.ts',
      {
        role: 'worker',
        temporalAddress: env.address,
        namespace: env.namespace ?? 'default',
        taskQueue,
        workflowBundlePath: bundlePath,
        emulatorUrl,
        apiKey,
        ledgerPath,
        oneByOne: options.oneByOne,
      },
      { profile: options.profile ? `${options.profile}-worker` : undefined },
    );
    cleanups.push(() => worker.stop());

    const since = isoDay(Date.parse(`${seeded.firstDay}T00:00:00Z`) - 86_400_000);
    say(`backfill --since ${since} (every group imported), worker in a child process`);
    const loadAtStart = round(os.loadavg()[0] ?? 0, 2);
    const workerSampler = sampleProc(worker.pid);
    const started = performance.now();
    // As runBackfill (the CLI) starts it, without its timeout timer, which would keep this process alive.
    const handle = await env.client.workflow.start(backfillWorkflowType, {
      workflowId: backfillWorkflowId(since),
      taskQueue,
      args: [{ since, asOf: seeded.today, requestsPerSecond: 100_000, pageSize: 100 }],
    });
    const ticker = setInterval(() => {
      handle.query(backfillProgressQuery).then(
        (p) => {
          const examined = backfillPhases.reduce((sum, phase) => sum + p.examined[phase], 0);
          say(
            `${round((performance.now() - started) / 1000)} s: ${p.phase}, ${examined} examined, ${p.pages} pages`,
          );
        },
        () => undefined, // between runs (continue-as-new)
      );
    }, 10_000);
    const progress = (await handle.result().finally(() => clearInterval(ticker))) as BackfillProgress;
    const seconds = (performance.now() - started) / 1000;
    const workerWindow = workerSampler.stop();
    const emulatorWindow = emulatorSampler.stop();
    const workerTimings = await worker.ask<Record<string, { calls: number; seconds: number }>>('timings');
    const workerMemoryAtEnd = await worker.ask<Record<string, number>>('memory');
    await worker.stop();

    const ledger = EmbeddedLedger.open({ path: ledgerPath });
    cleanups.push(() => ledger.close());
    const books = await checkBooks(ledger, progress, seededFigures);
    const { entries, lines } = ledger.database
      .prepare('SELECT (SELECT count(*) FROM entries) AS entries, (SELECT count(*) FROM lines) AS lines')
      .get() as { entries: number; lines: number };

    const listed = backfillPhases.reduce((sum, phase) => sum + (progress.totals[phase] ?? 0), 0);
    const examinedTotal = backfillPhases.reduce((sum, phase) => sum + progress.examined[phase], 0);
    const backfill: BackfillRun = {
      seconds: round(seconds),
      listed,
      examined: { ...progress.examined },
      examinedTotal,
      objectsPerSecond: round(listed / seconds),
      examinedPerSecond: round(examinedTotal / seconds),
      imported: progress.imported,
      settled: progress.settled,
      requests: progress.requests,
      pages: progress.pages,
      problems: progress.problems.length,
      entriesWritten: entries,
      linesWritten: lines,
      entriesPerSecond: round(entries / seconds),
    };
    if (listed !== bare.listed) {
      throw new Error(`the backfill's listings hold ${listed} objects, the walk listed ${bare.listed}`);
    }
    say(
      `done in ${backfill.seconds} s: ${backfill.objectsPerSecond} objects/s (${examinedTotal} examined), ${entries} entries, worker RSS peak ${workerWindow.peakRssMiB} MiB`,
    );
    return {
      seeded: seededFigures,
      oneByOne: options.oneByOne,
      since,
      bare,
      backfill,
      ratio: round(backfill.objectsPerSecond / bare.objectsPerSecond, 3),
      goal: 0.5,
      listOnlyRatio: round(backfill.objectsPerSecond / bare.listOnlyObjectsPerSecond, 3),
      worker: workerWindow,
      workerPeakRssMiB: Math.max(workerWindow.peakRssMiB, workerWindow.hwmMiB),
      workerTimings,
      workerMemoryAtEnd,
      loadAverage1m: { atStart: loadAtStart, atEnd: round(os.loadavg()[0] ?? 0, 2) },
      emulatorProcess: emulatorWindow,
      books,
    };
  } finally {
    forget();
    await cleanup();
  }
}

/** The baseline: one client, one request at a time, every page of each listing, then every payment by id. */
async function bareWalk(service: ServiceClient): Promise<BareWalk> {
  const pageSize = 100;
  const started = performance.now();
  let listed = 0;
  let listRequests = 0;
  const paymentIds: string[] = [];
  const walk = async <T>(
    list: (page: number) => Promise<{ items: T[]; total: number }>,
    each?: (t: T) => void,
  ) => {
    for (let page = 1; ; page++) {
      const { items, total } = await list(page);
      listRequests++;
      listed += items.length;
      if (each) for (const item of items) each(item);
      if (items.length === 0 || page * pageSize >= total) return;
    }
  };
  await walk(async (page) => {
    const l = await service.listPaymentLinks({ page, pageSize });
    return { items: l.paymentLinks, total: l.totalResults };
  });
  await walk(
    async (page) => {
      const l = await service.listPayments({ page, pageSize });
      return { items: l.payments, total: l.totalResults };
    },
    (p) => paymentIds.push(p.id),
  );
  await walk(async (page) => {
    const l = await service.listDisbursements({ page, pageSize });
    return { items: l.disbursements, total: l.totalResults };
  });
  await walk(async (page) => {
    const l = await service.listCheckDeposits({ page, pageSize });
    return { items: l.checkDeposits, total: l.totalResults };
  });
  const listSeconds = (performance.now() - started) / 1000;
  for (const id of paymentIds) await service.getPayment(id);
  const seconds = (performance.now() - started) / 1000;
  return {
    seconds: round(seconds),
    listed,
    listRequests,
    gets: paymentIds.length,
    objectsPerSecond: round(listed / seconds),
    listSeconds: round(listSeconds),
    listOnlyObjectsPerSecond: round(listed / listSeconds),
  };
}

/** Fails the stage unless the books are what the seeded history says, to the cent. */
async function checkBooks(
  ledger: EmbeddedLedger,
  progress: BackfillProgress,
  seeded: Seeded,
): Promise<BackfillBenchResult['books']> {
  const problems: string[] = [];
  const expect = (what: string, actual: unknown, expected: unknown) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      problems.push(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  };
  expect('phase', progress.phase, 'done');
  expect('problems', progress.problems, []);
  // Since the day before the first payment: every link (with its payment) and every payout imported whole.
  expect('imported groups', progress.imported, seeded.payments + seeded.payouts);
  expect('settled groups', progress.settled, 0);
  expect('opening entry', progress.openingEntryKey, null);
  const { total } = ledger.database
    .prepare('SELECT coalesce(sum(amount_cents), 0) AS total FROM lines')
    .get() as {
    total: number;
  };
  expect('trial balance (sum of every line)', total, 0);
  const balanceOf = (account: string) =>
    ledger.balanceOf(account as Parameters<EmbeddedLedger['balanceOf']>[0]);
  const books = {
    balanced: total === 0,
    processorClearingCents: await balanceOf(Accounts.ProcessorClearing),
    payoutsInTransitCents: await balanceOf(Accounts.PayoutsInTransit),
    revenueCents: await balanceOf(Accounts.Revenue),
    processingFeesCents: await balanceOf(Accounts.ProcessingFees),
  };
  expect(
    'Processor Clearing (what the service holds undisbursed)',
    books.processorClearingCents,
    seeded.undisbursedCents,
  );
  expect('Payouts In Transit (the PENDING payout)', books.payoutsInTransitCents, seeded.inTransitCents);
  expect('Revenue', books.revenueCents, -seeded.revenueCents);
  expect('Processing Fees', books.processingFeesCents, seeded.feesCents);
  expect('Accounts Receivable (every link paid)', await balanceOf(Accounts.AccountsReceivable), 0);
  if (problems.length > 0) throw new Error(`the backfill's books are wrong: ${problems.join('; ')}`);
  return books;
}

// ---------------------------------------------------------------------------------------------------------
// Children: this file is their entry too (bench/child.ts forks it with { role, ... }).

interface EmulatorInput {
  role: 'emulator';
  dbPath: string;
  payments: number;
  payoutEvery: number;
}

interface WorkerInput {
  role: 'worker';
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  workflowBundlePath: string;
  emulatorUrl: string;
  apiKey: string;
  ledgerPath: string;
  /** Hide the ledger's postMany from the activities: every entry its own transaction (before batching). */
  oneByOne: boolean;
}

async function emulatorChild(input: EmulatorInput): Promise<void> {
  const started = performance.now();
  const store = new Store({ dbPath: input.dbPath });
  const { orgId, apiKey } = store.write((tx) => {
    const created = createOrganization(tx, { name: 'Bench Backfill LLC', feePassthroughPercent: 0 });
    return { orgId: created.organization.id, apiKey: created.members[0]!.apiKeys[0]! };
  });
  const figures = { undisbursed: 0, inTransit: 0, revenue: 0, fees: 0, payouts: 0 };
  let pendingPayout: string | null = null;
  const firstDay = isoDay(store.clock.now().getTime());
  const batch = 1_000;
  for (let from = 0; from < input.payments; from += batch) {
    store.write((tx) => {
      for (let i = from; i < Math.min(from + batch, input.payments); i++) {
        // Amounts vary (10.00 to 509.99) so a wrong line shows in the totals.
        const amount = 10_00 + ((i * 7_919) % 50_000);
        const link = createPaymentLink(tx, orgId, { name: `BF-${i}`, requestedAmountCents: amount });
        const payment = payPaymentLink(tx, orgId, link.id, { method: 'Card' });
        settlePayment(tx, orgId, payment.id);
        figures.revenue += amount;
        figures.fees += payment.platform_fee_cents;
        figures.undisbursed += payment.amount_cents - payment.platform_fee_cents;
        if ((i + 1) % input.payoutEvery === 0 && i + 1 < input.payments) {
          if (pendingPayout) settleDisbursement(tx, orgId, pendingPayout, 'SUCCEEDED');
          const payout = batchDisbursement(tx, orgId);
          if (payout.amount_cents !== figures.undisbursed) {
            throw new Error(
              `payout ${payout.id}: ${payout.amount_cents} cents, seeded ${figures.undisbursed}`,
            );
          }
          pendingPayout = payout.id;
          figures.inTransit = payout.amount_cents;
          figures.undisbursed = 0;
          figures.payouts++;
        }
      }
      // Seeding is setup, not history: no receiver should hear of it.
      tx.db.prepare('DELETE FROM events WHERE org_id = ?').run(orgId);
    });
  }
  const held = store.read((r) => heldBalanceCents(r, orgId));
  const emulator = createEmulator({ store });
  const emulatorUrl = await emulator.app.listen({ host: '127.0.0.1', port: 0 });
  serveParent({}, async () => {
    await emulator.app.close();
    store.close();
  });
  const ready: EmulatorReady & { type: 'ready' } = {
    type: 'ready',
    emulatorUrl,
    apiKey,
    payments: input.payments,
    payouts: figures.payouts,
    undisbursedCents: figures.undisbursed,
    inTransitCents: figures.inTransit,
    revenueCents: figures.revenue,
    feesCents: figures.fees,
    heldBalanceCents: held,
    firstDay,
    today: isoDay(store.clock.now().getTime()),
    seedSeconds: round((performance.now() - started) / 1000),
  };
  process.send?.(ready);
}

/** Time spent in each method of `target` (ms and calls), to say where a backfill's time goes. */
type Timings = Record<string, { calls: number; ms: number }>;
function count(timings: Timings, name: string, started: number): void {
  const t = timings[name] ?? { calls: 0, ms: 0 };
  t.calls++;
  t.ms += performance.now() - started;
  timings[name] = t;
}
function timed<T extends object>(target: T, prefix: string, timings: Timings): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result = value.apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.finally(() => count(timings, `${prefix}.${property}`, started));
      };
    },
  });
}

async function workerChild(input: WorkerInput): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const logger = createLogger({ level: 'warn', format: 'json' });
  const timings: Timings = {};
  // As `booksync worker` opens its books (LEDGER_DB) and its service client; timed, and its activities
  // as createBooksyncWorker registers them (backfillPages timed by the phase each step starts in).
  const store = await openLedgerStore({ LEDGER_URL: undefined, ledgerDb: input.ledgerPath }, logger);
  const service = new ServiceClient({ baseUrl: input.emulatorUrl, apiKey: input.apiKey, logger });
  const activities = createActivities({
    service: timed(service, 'service', timings),
    ledger: timed(store.ledger, 'ledger', timings),
    logger,
    timeZone: 'UTC',
    ...(input.oneByOne ? { backfillPageWrites: 'entry-by-entry' as const } : {}),
  });
  const backfillPages = activities.backfillPages;
  activities.backfillPages = async (step) => {
    const started = performance.now();
    try {
      return await backfillPages(step);
    } finally {
      count(timings, `backfillPages.from-${step.pageToken?.split(':')[0] ?? 'links'}`, started);
    }
  };
  const connection = await NativeConnection.connect({ address: input.temporalAddress });
  const worker = await Worker.create({
    ...(await booksyncWorkflowWorkerOptions({
      connection,
      namespace: input.namespace,
      taskQueue: input.taskQueue,
      logger,
      workflowBundle: { codePath: input.workflowBundlePath },
    })),
    activities,
  });
  const run = worker.run();
  serveParent(
    {
      timings: () =>
        Object.fromEntries(
          Object.entries(timings).map(([k, t]) => [k, { calls: t.calls, seconds: round(t.ms / 1000, 2) }]),
        ),
      memory: ownMemoryMiB,
    },
    async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run;
      await connection.close();
      await store.close();
    },
  );
  process.send?.({ type: 'ready' });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const input = childInput<EmulatorInput | WorkerInput>();
  if (input.role === 'emulator') await emulatorChild(input);
  else if (input.role === 'worker') await workerChild(input);
  else throw new Error('bench/backfill.ts: run as a child with { role: "emulator" | "worker" }');
}
