import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { settingsSchema } from '../src/config/settings.js';
import { benchAchWindows } from './ach-windows.js';
import { benchBackfill } from './backfill.js';
import { benchCertificate } from './certificate.js';
import { benchDir } from './child.js';
import { benchEmulator } from './emulator.js';
import { benchEndToEnd } from './end-to-end.js';
import { benchIngress } from './ingress.js';
import { exitCleanlyOnSignals, surviveLeftoverErrors } from './interrupt.js';
import { benchLatency } from './latency.js';
import { benchQuickBooksPush } from './quickbooks-push.js';
import { type BenchResults, printReport } from './report.js';
import { startSecureSetup } from './secure.js';
import { benchSignature } from './signature.js';
import { benchTrytonPush } from './tryton-push.js';
import { benchXeroPush } from './xero-push.js';

// npm run bench [-- --quick] [-- --only ingress,e2e] [-- --profile]
// Runs every stage one after the other in this one run, prints a table, writes bench/results/latest.json.
// Everything it starts listens on loopback and is stopped before it exits.

const stages = [
  'signature',
  'ingress',
  'e2e',
  'ach',
  'emulator',
  'backfill',
  'tryton',
  'quickbooks',
  'xero',
  'latency',
  'certificate',
] as const;
type Stage = (typeof stages)[number];

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const quick = values.quick ?? false;
const only = new Set((values.only?.split(',') ?? stages).map((s) => s.trim()) as Stage[]);
for (const stage of only) {
  if (!stages.includes(stage)) throw new Error(`unknown stage ${stage}; stages: ${stages.join(', ')}`);
}
const profile = (name: string) => (values.profile ? name : undefined);
const positive = (name: string, fallback: number, least = 1) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} must be an integer ≥ ${least}`);
  return value;
};

// The quick run (CI's) only has to show that every stage runs its whole path and prints its ratios, in
// about 100 s on a quiet 2-core machine: each stage at the least size at which its ratios still compare like
// with like (docs/benchmarks.md lists them and the seconds each stage takes). The full run measures.
const config = {
  signatureMs: quick ? 300 : 2_000,
  ingress: {
    // Each loop (and the warm-ups, half as long) 2 s: the ratios are of rates, not of counts.
    durationMs: quick ? 2_000 : 10_000,
    rates: quick ? [100] : [100, 200, 400],
    concurrency: quick ? 16 : 32,
  },
  // Quick: 10 paced and 10 at once; the three whole stacks' start-ups are most of the stage's time.
  e2e: { payments: positive('BENCH_E2E_PAYMENTS', quick ? 20 : 300), pacedPerSecond: quick ? 10 : 20 },
  achWindows: positive('BENCH_ACH_WINDOWS', quick ? 120 : 10_000),
  // The production bound (WORKER_MAX_CACHED_WORKFLOWS's default) and the V8 heap flags docs/configuration.md recommends
  // for a worker holding many windows; BENCH_ACH_NODE_FLAGS='' runs the N-window worker without them.
  // The quick run's 120 windows would all fit in the production cache of 250: it bounds the cache at half of
  // them instead, so windows are still evicted and their closes still begin with a replay.
  achMaxCachedWorkflows: positive(
    'BENCH_ACH_MAX_CACHED',
    quick ? 60 : settingsSchema.shape.WORKER_MAX_CACHED_WORKFLOWS.parse(undefined),
  ),
  achWorkerNodeFlags: (process.env.BENCH_ACH_NODE_FLAGS ?? '--max-old-space-size=192 --max-semi-space-size=2')
    .split(' ')
    .filter(Boolean),
  // glibc's malloc, as docs/configuration.md recommends for such a worker: at most 2 arenas (it keeps up to 8 a core for the
  // SDK's native threads), and fixed trim and mmap thresholds of 128 KiB (glibc raises both on its own after
  // large frees, up to 64 MiB kept per arena: 308 MiB peak at 10,000 windows without them, 261 MiB with).
  // BENCH_ACH_MALLOC_ARENA_MAX='' / BENCH_ACH_MALLOC_TRIM='' leave glibc's defaults.
  achWorkerEnv: Object.fromEntries(
    [
      ['MALLOC_ARENA_MAX', process.env.BENCH_ACH_MALLOC_ARENA_MAX ?? '2'],
      ['MALLOC_TRIM_THRESHOLD_', process.env.BENCH_ACH_MALLOC_TRIM ?? '131072'],
      ['MALLOC_MMAP_THRESHOLD_', process.env.BENCH_ACH_MALLOC_TRIM ?? '131072'],
    ].filter(([, v]) => v !== ''),
  ) as Record<string, string>,
  // 0: no replay pair. The quick run (CI's) has none: the pair runs the same worker and workflows as the
  // stage's bounded run, only with other cache settings, and took 37 s of CI's quick bench; the full run
  // measures it (BENCH_ACH_COMPARISON_WINDOWS=300 gives a quick run one).
  achComparisonWindows: positive('BENCH_ACH_COMPARISON_WINDOWS', quick ? 0 : 2_000, 0),
  achIdleMs: quick ? 2_000 : 10_000,
  achPhaseTimeoutMs: positive('BENCH_ACH_PHASE_SECONDS', quick ? 60 : 300) * 1000,
  emulator: { durationMs: quick ? 1_000 : 8_000, concurrency: 16, links: quick ? 100 : 2_000 },
  // Card payments, each on its own link, settled; a payout every payoutEvery (the last one PENDING).
  backfill: {
    // Quick: 1,000 payments, ten pages of each listing, so the walk and the backfill are both past their
    // first pages (fewer, and the worker's start-up is the ratio); two payouts, one paid out, one PENDING.
    payments: positive('BENCH_BACKFILL_PAYMENTS', quick ? 1_000 : 50_000),
    payoutEvery: positive('BENCH_BACKFILL_PAYOUT_EVERY', quick ? 400 : 5_000),
    // 1: the worker's activities write every entry in its own transaction (the page's one write disabled).
    oneByOne: process.env.BENCH_BACKFILL_ONE_BY_ONE === '1',
  },
  // The three targets' backlogs are small in the quick run. Tryton: 10 payments on the empty database and 10
  // once the history is in (each in two rounds of 5 alternating with the bare create+post), a backlog of 6
  // links (3 one by one, 3 in one pushMany). The history stays at 20,000 moves: copied in with SQL in a few
  // seconds, and with fewer the ratio to the empty database would compare two nearly empty databases.
  trytonDocuments: positive('BENCH_TRYTON_DOCUMENTS', quick ? 10 : 150),
  trytonHistoryMoves: positive('BENCH_TRYTON_HISTORY_MOVES', quick ? 20_000 : 200_000, 0),
  // A backlog of links (an invoice and its payment each), half pushed one by one, half in batches.
  trytonBacklogLinks: positive('BENCH_TRYTON_BACKLOG_LINKS', quick ? 6 : 200, 0),
  // 0: Tryton without its task queue (trytond alone, reports rendered inside the request).
  trytonQueue: process.env.BENCH_TRYTON_QUEUE !== '0',
  quickbooksLinks: positive('BENCH_QUICKBOOKS_LINKS', quick ? 15 : 120),
  xeroLinks: positive('BENCH_XERO_LINKS', quick ? 10 : 60),
  xeroOneByOneLinks: quick ? 2 : 10,
  // Card payments to Tryton and to the QuickBooks double through the whole stack (the latency to the
  // accounting software), after a warm-up of a few; the bare create+post moves that set Tryton's pace.
  latency: {
    // Tryton at the goal's pace (a card payment a second), QBO at half of its 40 batch requests a minute.
    // The quick run (CI's) only shows the stage runs: a handful of payments, QuickBooks not trickled.
    trytonPayments: positive('BENCH_LATENCY_TRYTON_PAYMENTS', quick ? 4 : 40),
    // Then faster paces, each until its p99 passes 2 s: where the latency goal stops holding.
    trytonSweepPaces: (process.env.BENCH_LATENCY_TRYTON_PACES ?? '1.5,2,2.5,3,4')
      .split(',')
      .filter((p) => p.trim() !== '')
      .map(Number),
    trytonSweepPayments: positive('BENCH_LATENCY_TRYTON_SWEEP_PAYMENTS', 20),
    quickbooksPayments: positive('BENCH_LATENCY_QUICKBOOKS_PAYMENTS', quick ? 2 : 20),
    warmupPayments: quick ? 1 : 5,
    bareMoves: quick ? 6 : 40,
    quickbooksAtLeastPerSecond: quick ? 1 : 0,
    // Tryton's whole stack takes a minute to start: the quick run leaves it to the full one (its tryton stage
    // already pushes to a real Tryton).
    targets: quick ? (['quickbooks'] as const) : (['tryton', 'quickbooks'] as const),
  },
  certificateInvoices: positive('BENCH_CERTIFICATE_INVOICES', quick ? 5_000 : 50_000),
};

const progress = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const results: BenchResults = {
  startedAt: new Date().toISOString(),
  mode: quick ? 'quick' : 'full',
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadAverage1mAtStart: Math.round(os.loadavg()[0]! * 100) / 100,
  },
  config,
  stages: {},
  stageSeconds: {},
  errors: {},
};

const out = values.out ?? path.join(benchDir, 'results', 'latest.json');
const save = () => {
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
};

async function stage(name: Stage, run: () => Promise<unknown>): Promise<void> {
  if (!only.has(name)) return;
  progress(`${name}: start`);
  const started = performance.now();
  try {
    (results.stages as Record<string, unknown>)[name] = await run();
  } catch (error) {
    results.errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
    progress(`${name}: FAILED ${error instanceof Error ? error.message : String(error)}`);
  }
  // Wall seconds of each stage, set-up and tear-down included: where the bench's own time goes.
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  results.stageSeconds[name] = seconds;
  progress(`${name}: done in ${seconds.toFixed(1)} s`);
  save(); // after every stage, so an interrupted run keeps what it measured
}

exitCleanlyOnSignals(progress);
surviveLeftoverErrors(progress);
const started = performance.now();
await stage('signature', () => benchSignature({ durationMs: config.signatureMs }));
// Encryption and tracing on against off, in these two stages: a payload key and an OTLP sink.
const secure = only.has('ingress') || only.has('e2e') ? await startSecureSetup() : undefined;
await stage('ingress', () =>
  benchIngress({ ...config.ingress, profile: profile('ingress'), progress, secure }),
);
// The e2e worker runs at docs/configuration.md's settings too (its peak RSS while booking, goal ≤ 300 MiB).
await stage('e2e', () =>
  benchEndToEnd({
    ...config.e2e,
    workerNodeFlags: config.achWorkerNodeFlags,
    workerEnv: config.achWorkerEnv,
    profile: profile('e2e-worker'),
    progress,
    secure,
  }),
);
await secure?.close();
await stage('ach', () =>
  benchAchWindows({
    windows: config.achWindows,
    maxCachedWorkflows: config.achMaxCachedWorkflows,
    comparisonWindows: config.achComparisonWindows,
    workerNodeFlags: config.achWorkerNodeFlags,
    workerEnv: config.achWorkerEnv,
    idleMs: config.achIdleMs,
    phaseTimeoutMs: config.achPhaseTimeoutMs,
    profile: profile('ach-worker'),
    progress,
  }),
);
await stage('emulator', () => benchEmulator({ ...config.emulator, profile: profile('emulator'), progress }));
await stage('backfill', () => benchBackfill({ ...config.backfill, profile: profile('backfill'), progress }));
const targetStages = [
  () =>
    stage('tryton', () =>
      benchTrytonPush({
        documents: config.trytonDocuments,
        historyMoves: config.trytonHistoryMoves,
        backlogLinks: config.trytonBacklogLinks,
        queue: config.trytonQueue,
        progress,
      }),
    ),
  () => stage('quickbooks', () => benchQuickBooksPush({ links: config.quickbooksLinks, progress })),
  () =>
    stage('xero', () =>
      benchXeroPush({ links: config.xeroLinks, oneByOneLinks: config.xeroOneByOneLinks, progress }),
    ),
];
// The quick run pushes to the three targets side by side: the QuickBooks and Xero stages wait on their
// limiters (QBO's and Xero's rates) most of their time, and Tryton's pushes alternate with its bare
// baseline, so the other two's load hits both alike. The full run measures each alone.
if (quick) await Promise.all(targetStages.map((run) => run()));
else for (const run of targetStages) await run();
await stage('latency', () =>
  benchLatency({
    ...config.latency,
    workerNodeFlags: config.achWorkerNodeFlags,
    workerEnv: config.achWorkerEnv,
    progress,
  }),
);
await stage('certificate', () => benchCertificate({ invoices: config.certificateInvoices, progress }));
results.totalSeconds = Math.round((performance.now() - started) / 100) / 10;

save();
printReport(results, stages);
progress(`wrote ${path.relative(process.cwd(), out)}`);
process.exitCode = Object.keys(results.errors).length > 0 ? 1 : 0;
