import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { serviceEventSignal } from '../src/flows/in-workflow/service-event.js';
import { cachedWorkflowBundle } from '../src/runtime/worker/workflow-bundle.js';
import { startTimeSkipping } from '../test/support/temporal.js';
import { type BenchChild, startChild } from './child.js';
import { onInterrupt } from './interrupt.js';
import { type ProcWindow, sampleProc } from './proc-stats.js';
import { inParallel } from './stats.js';

// Stage 4: N ACH payments open in their 60-day return window at once, on Temporal's time-skipping test
// server. booksync's payment workflow (the real bundle) runs in a child worker built as `booksync worker`
// builds it, with a stand-in syncPayment answering "ACH, PENDING" (bench/ach-worker.ts). Measures: how fast
// N windows open (signalWithStart + first sync), the worker's memory and CPU while all N wait on their timers
// with the workflow cache bounded as in production (WORKER_MAX_CACHED_WORKFLOWS), then, after skipping 61
// days, how long the N closing syncs take (time skipping unlocked: the server jumps from timer to timer).
// With a bounded cache nearly every waiting window has been evicted, so each close starts with a replay of
// its history; a second pair of runs at a smaller M (2,000) closes M windows once with a cache holding all
// of them and once bounded, on fresh servers, to price that replay: closes/s bounded ÷ closes/s cached.

export interface AchWindowsOptions {
  windows: number;
  /** The production bound (WORKER_MAX_CACHED_WORKFLOWS's default, or what the run was given). */
  maxCachedWorkflows: number;
  /** M of the replay comparison (cached vs bounded); 0 skips it. */
  comparisonWindows: number;
  /**
   * Node flags of the worker in the N-window run: the V8 heap bounds docs/configuration.md recommends for a worker holding
   * many windows (NODE_OPTIONS). The replay pair runs without them (a cache of M + 100 needs the heap).
   */
  workerNodeFlags: string[];
  /** Environment of the worker in the N-window run (MALLOC_ARENA_MAX=2, as docs/configuration.md recommends with the flags). */
  workerEnv: Record<string, string>;
  idleMs: number;
  /** Bound on each of the opening and closing phases; what did not finish by then is reported as such. */
  phaseTimeoutMs: number;
  profile?: string | undefined;
  progress: (line: string) => void;
}

/** What the worker process says about itself while all windows wait (process.memoryUsage, SDK status). */
export interface AchWorkerMemory {
  rssMiB: number;
  /**
   * The main thread's V8 heap (activities, the SDK's worker, gRPC glue): as reserved, and in use (garbage
   * included). The workflow thread's heap is apart, in RSS only.
   */
  mainHeapTotalMiB: number;
  mainHeapUsedMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
  /** Workflows in the worker's sticky cache (Worker.getStatus().numCachedWorkflows). */
  cachedWorkflows: number;
}

export interface AchRun {
  windows: number;
  /** The worker's maxCachedWorkflows. */
  maxCachedWorkflows: number;
  /** Node flags the worker ran with (none: V8's defaults, old space up to about 4 GiB here). */
  nodeFlags: string[];
  /** Environment added to the worker's (none: glibc's malloc with up to 8 arenas a core). */
  env: Record<string, string>;
  /** The worker ready, before any window: the floor under every figure below. */
  workerAtStart: AchWorkerMemory;
  /** Windows whose first sync ran within the bound (all of them unless the machine was too slow). */
  opened: number;
  /** signalWithStart of all N, until the last one was accepted. */
  startSeconds: number;
  startedPerSecond: number;
  /** Until all N had their first sync (window open, timer set). */
  openSeconds: number;
  openedPerSecond: number;
  workerWhileOpening: ProcWindow;
  /** All N waiting on their timers, nothing else to do. */
  workerIdle: ProcWindow;
  idleMemory: AchWorkerMemory;
  /** From the 61-day skip until every window's closing sync ran. */
  closeSeconds: number;
  closedPerSecond: number;
  closed: number;
  /** How far the server's clock moved while closing (at least 60 days once every window closed). */
  serverDaysSkipped: number;
  workerWhileClosing: ProcWindow;
  /** Worker CPU per closed window (ms): the replay's price shows here even when the server is the limit. */
  workerCpuMsPerClose: number;
  /** Highest RSS sampled from the first signalWithStart to the last close (start-up not included). */
  peakRssMiB: number;
}

export interface AchWindowsResult {
  windows: number;
  signalConcurrency: number;
  /** N windows, the production bound: the memory figure (target: RSS ≤ 300 MiB while all wait). */
  bounded: AchRun;
  targetRssMiB: number;
  /** The N-window run's peak RSS (opening, waiting, closing) at or under the target. */
  withinTarget: boolean;
  /** M windows twice: cache ≥ M (no replay at close) and the production bound (a replay per close). */
  replay?: {
    windows: number;
    cached: AchRun;
    bounded: AchRun;
    /** closes/s bounded ÷ closes/s cached (below 1: what replaying evicted windows costs). */
    closeRateRatio: number;
    /** worker CPU per close, bounded ÷ cached. */
    cpuPerCloseRatio: number;
  };
}

const signalConcurrency = 32;
const targetRssMiB = 300;
const round = (n: number) => Math.round(n * 10) / 10;

interface Counts {
  opened: number;
  closing: number;
  cached: number;
}

async function runWindows(
  options: AchWindowsOptions,
  run: {
    label: string;
    windows: number;
    maxCachedWorkflows: number;
    idleMs: number;
    bundlePath: string;
    nodeFlags: string[];
    env: Record<string, string>;
  },
): Promise<AchRun> {
  const env = await startTimeSkipping();
  let worker: BenchChild<{ type: 'ready' }> | undefined;
  const forget = onInterrupt(async () => {
    await worker?.stop();
    await env.teardown();
  });
  const say = (line: string) => options.progress(`ach ${run.label}: ${line}`);
  try {
    const taskQueue = `bench-ach-${process.pid}`;
    worker = await startChild<{ type: 'ready' }>(
      'ach-worker.ts',
      {
        temporalAddress: env.address,
        namespace: env.namespace ?? 'default',
        taskQueue,
        maxCachedWorkflows: run.maxCachedWorkflows,
        workflowBundlePath: run.bundlePath,
      },
      {
        profile: options.profile ? `${options.profile}-${run.label}` : undefined,
        nodeFlags: run.nodeFlags,
        env: run.env,
      },
    );
    const counts = () => worker!.ask<Counts>('counts');
    const waitUntil = async (what: string, done: (c: Counts) => boolean) => {
      const deadline = Date.now() + options.phaseTimeoutMs;
      let last = await counts();
      let lastLog = Date.now();
      while (!done(last)) {
        if (Date.now() > deadline) return last;
        await sleep(250);
        last = await counts();
        if (Date.now() - lastLog > 5_000) {
          say(`${what}: ${JSON.stringify(last)}, worker RSS ${(await memory()).rssMiB} MiB`);
          lastLog = Date.now();
        }
      }
      return last;
    };
    const memory = async (): Promise<AchWorkerMemory> => {
      const [mem, c] = await Promise.all([
        worker!.ask<Omit<AchWorkerMemory, 'cachedWorkflows'>>('memory'),
        counts(),
      ]);
      return { ...mem, cachedWorkflows: c.cached };
    };

    const workerAtStart = await memory();
    say(
      `worker ready at RSS ${workerAtStart.rssMiB} MiB (${[...Object.entries(run.env).map(([k, v]) => `${k}=${v}`), ...run.nodeFlags].join(' ') || 'no flags'}); opening ${run.windows} return windows (${signalConcurrency} signalWithStart in flight), maxCachedWorkflows ${run.maxCachedWorkflows}`,
    );
    const opening = sampleProc(worker.pid);
    const started = performance.now();
    await inParallel(run.windows, signalConcurrency, async (i) => {
      const paymentId = `pay_ach${i}`;
      await env.client.workflow.signalWithStart('payment', {
        workflowId: `payment-${paymentId}`,
        taskQueue,
        args: [{ paymentId }],
        signal: serviceEventSignal,
        signalArgs: [
          {
            eventId: randomUUID(),
            category: 'payment.made',
            objectType: 'payment',
            objectId: paymentId,
            createdAt: new Date().toISOString(),
          },
        ],
      });
    });
    const startSeconds = (performance.now() - started) / 1000;
    const afterOpen = await waitUntil('opening', (c) => c.opened >= run.windows);
    const opened = afterOpen.opened;
    if (opened < run.windows) {
      say(`only ${opened} of ${run.windows} windows opened within the bound; going on with those`);
    }
    // The first sync ran; give the workflow tasks that set the timers a moment to complete.
    await sleep(1_000);
    const openSeconds = (performance.now() - started) / 1000 - 1;
    const workerWhileOpening = opening.stop();

    say(`all open; sampling the idle worker for ${run.idleMs / 1000} s`);
    const idle = sampleProc(worker.pid);
    await sleep(run.idleMs);
    const idleMemory = await memory();
    const workerIdle = idle.stop();
    say(`idle: RSS ${workerIdle.lastRssMiB} MiB, ${idleMemory.cachedWorkflows} workflows cached`);

    say('letting the server skip time past the 60-day windows');
    const openedAtServerMs = await env.currentTimeMs();
    const closing = sampleProc(worker.pid);
    const closeStarted = performance.now();
    // Unlocking time skipping lets the server jump to the next timer whenever nothing is running, which
    // is what env.sleep('61 days') does too, without a call that stays open (and may outlive the bound).
    const testService = env.connection.testService;
    if (!testService) throw new Error('not a time-skipping server');
    await testService.unlockTimeSkipping({});
    const afterClose = await waitUntil('closing', (c) => c.closing >= opened);
    const closeSeconds = (performance.now() - closeStarted) / 1000;
    const workerWhileClosing = closing.stop();
    const serverDays = ((await env.currentTimeMs()) - openedAtServerMs) / 86_400_000;
    await testService.lockTimeSkipping({}).catch(() => undefined);
    const cpuMsWhileClosing = (workerWhileClosing.cpuPercent / 100) * workerWhileClosing.seconds * 1000;
    say(
      `closed ${afterClose.closing} in ${round(closeSeconds)} s, worker RSS peak ${workerWhileClosing.peakRssMiB} MiB`,
    );
    return {
      windows: run.windows,
      maxCachedWorkflows: run.maxCachedWorkflows,
      nodeFlags: run.nodeFlags,
      env: run.env,
      workerAtStart,
      opened,
      startSeconds: round(startSeconds),
      startedPerSecond: round(run.windows / startSeconds),
      openSeconds: round(openSeconds),
      openedPerSecond: round(opened / openSeconds),
      workerWhileOpening,
      workerIdle,
      idleMemory,
      closeSeconds: round(closeSeconds),
      closedPerSecond: round(afterClose.closing / closeSeconds),
      closed: afterClose.closing,
      serverDaysSkipped: round(serverDays),
      workerWhileClosing,
      workerCpuMsPerClose: round(cpuMsWhileClosing / Math.max(afterClose.closing, 1)),
      peakRssMiB: Math.max(
        workerWhileOpening.peakRssMiB,
        workerIdle.peakRssMiB,
        workerWhileClosing.peakRssMiB,
      ),
    };
  } finally {
    forget();
    await worker?.stop();
    await env.teardown();
  }
}

export async function benchAchWindows(options: AchWindowsOptions): Promise<AchWindowsResult> {
  // The worker's cached bundle (src/runtime/worker/workflow-bundle.ts), built here once if the sources changed, and
  // handed to each child: a worker that bundles at start carries webpack's peak (about 120 MiB more RSS)
  // into every figure, and sources edited during the run would otherwise make a later child bundle again.
  const { codePath: bundlePath } = await cachedWorkflowBundle();
  const bounded = await runWindows(options, {
    bundlePath,
    label: 'bounded',
    windows: options.windows,
    maxCachedWorkflows: options.maxCachedWorkflows,
    idleMs: options.idleMs,
    nodeFlags: options.workerNodeFlags,
    env: options.workerEnv,
  });
  const result: AchWindowsResult = {
    windows: options.windows,
    signalConcurrency,
    bounded,
    targetRssMiB,
    withinTarget: bounded.peakRssMiB <= targetRssMiB,
  };
  const m = options.comparisonWindows;
  if (m < 1) return result;
  // A short idle: the pair prices the close, the memory figure is the big run's.
  const idleMs = Math.min(options.idleMs, 3_000);
  const cached = await runWindows(options, {
    bundlePath,
    label: `cached-${m}`,
    windows: m,
    // Room for all M: the cache never evicts, so a close is one workflow task on a live workflow.
    maxCachedWorkflows: m + 100,
    idleMs,
    nodeFlags: [],
    env: {},
  });
  const boundedM = await runWindows(options, {
    bundlePath,
    label: `bounded-${m}`,
    windows: m,
    maxCachedWorkflows: options.maxCachedWorkflows,
    idleMs,
    nodeFlags: [],
    env: {},
  });
  result.replay = {
    windows: m,
    cached,
    bounded: boundedM,
    closeRateRatio: Math.round((boundedM.closedPerSecond / cached.closedPerSecond) * 100) / 100,
    cpuPerCloseRatio:
      Math.round((boundedM.workerCpuMsPerClose / Math.max(cached.workerCpuMsPerClose, 0.1)) * 100) / 100,
  };
  return result;
}
