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

const config = {
  signatureMs: quick ? 300 : 2_000,
  ingress: {
    durationMs: quick ? 3_000 : 10_000,
    rates: quick ? [50, 100] : [100, 200, 400],
    concurrency: quick ? 16 : 32,
  },
  e2e: { payments: positive('BENCH_E2E_PAYMENTS', quick ? 40 : 300), pacedPerSecond: quick ? 10 : 20 },
  achWindows: positive('BENCH_ACH_WINDOWS', quick ? 300 : 10_000),
  // The production bound (WORKER_MAX_CACHED_WORKFLOWS's default) and the V8 heap flags docs/configuration.md recommends
  // for a worker holding many windows; BENCH_ACH_NODE_FLAGS='' runs the N-window worker without them.
  achMaxCachedWorkflows: positive(
    'BENCH_ACH_MAX_CACHED',
    settingsSchema.shape.WORKER_MAX_CACHED_WORKFLOWS.parse(undefined),
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
  achIdleMs: quick ? 3_000 : 10_000,
  achPhaseTimeoutMs: positive('BENCH_ACH_PHASE_SECONDS', quick ? 60 : 300) * 1000,
  emulator: { durationMs: quick ? 2_000 : 8_000, concurrency: 16, links: quick ? 200 : 2_000 },
  // Card payments, each on its own link, settled; a payout every payoutEvery (the last one PENDING).
  backfill: {
    payments: positive('BENCH_BACKFILL_PAYMENTS', quick ? 2_000 : 50_000),
    payoutEvery: positive('BENCH_BACKFILL_PAYOUT_EVERY', quick ? 500 : 5_000),
    // 1: the worker's activities write every entry in its own transaction (the page's one write disabled).
    oneByOne: process.env.BENCH_BACKFILL_ONE_BY_ONE === '1',
  },
  // The quick run (CI's) only has to show each stage runs: the three targets' backlogs are small there (the
  // whole quick bench about 4 minutes); the full run measures.
  trytonDocuments: positive('BENCH_TRYTON_DOCUMENTS', quick ? 15 : 150),
  trytonHistoryMoves: positive('BENCH_TRYTON_HISTORY_MOVES', quick ? 20_000 : 200_000, 0),
  // A backlog of links (an invoice and its payment each), half pushed one by one, half in batches.
  trytonBacklogLinks: positive('BENCH_TRYTON_BACKLOG_LINKS', quick ? 20 : 200, 0),
  // 0: Tryton without its task queue (trytond alone, reports rendered inside the request).
  trytonQueue: process.env.BENCH_TRYTON_QUEUE !== '0',
  quickbooksLinks: positive('BENCH_QUICKBOOKS_LINKS', quick ? 15 : 120),
  xeroLinks: positive('BENCH_XERO_LINKS', quick ? 10 : 60),
  xeroOneByOneLinks: quick ? 2 : 10,
  // Card payments to Tryton and to the QuickBooks double through the whole stack (the latency to the
  // accounting software), after a warm-up of a few; the bare create+post moves that set Tryton's pace.
  latency: {
    // Both paces are slow (a quarter of Tryton's bare rate; QBO's 40 batch requests a minute): few payments.
    // The quick run (CI's) only shows the stage runs: a handful of payments, QuickBooks not trickled.
    trytonPayments: positive('BENCH_LATENCY_TRYTON_PAYMENTS', quick ? 4 : 40),
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
  progress(`${name}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
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
await stage('tryton', () =>
  benchTrytonPush({
    documents: config.trytonDocuments,
    historyMoves: config.trytonHistoryMoves,
    backlogLinks: config.trytonBacklogLinks,
    queue: config.trytonQueue,
    progress,
  }),
);
await stage('quickbooks', () => benchQuickBooksPush({ links: config.quickbooksLinks, progress }));
await stage('xero', () =>
  benchXeroPush({ links: config.xeroLinks, oneByOneLinks: config.xeroOneByOneLinks, progress }),
);
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
printReport(results);
progress(`wrote ${path.relative(process.cwd(), out)}`);
process.exitCode = Object.keys(results.errors).length > 0 ? 1 : 0;
