import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import Database from 'better-sqlite3';
import { cachedWorkflowBundle } from '../src/runtime/worker/workflow-bundle.js';
import { bareEventSignal, barePayment } from './bare-pipeline/workflow.js';
import { startChild } from './child.js';
import { freePort, sdkLatencies, sdkSince, type WorkerTaskLatencies } from './payment-stack.js';
import { inParallel, type LatencySummary, summarize } from './stats.js';

// The e2e stage's baseline for booksync's own part: a bare Temporal pipeline of the same shape on
// the same dev server in the same run. One signalWithStart per payment from the bench process (booksync's
// ingress does one per delivery), paced at the e2e stage's paced rate; a bare workflow (bench/bare-pipeline/,
// its own bundle) in a worker process of its own, doing what booksync's payment workflow does for a card
// payment up to the booked entry (a workflow task that takes the signal and schedules one activity; the
// activity; a second workflow task that completes), its activity one SQLite write. Acknowledged = the
// signalWithStart answered; done = the row's write. Both histories are counted, so a change of shape on
// either side shows in the JSON.

/** booksync's acked → booked may take at most 1/0.7 of the bare acked → done. */
export const barePipelineGoal = 0.7;

export interface HistoryShape {
  workflowTasks: number;
  activities: number;
  events: number;
}

export interface BarePipelineResult {
  payments: number;
  offeredPerSecond: number;
  /** The signalWithStart call from the bench process (booksync's ingress makes the same call). */
  signalWithStart: LatencySummary;
  /** From the signalWithStart's answer to the activity's write. */
  acknowledgedToDone: LatencySummary;
  /** One history of each side: the bare workflow's and the first paced payment's in booksync. */
  shape: { bare: HistoryShape; booksync: HistoryShape };
  /** The bare worker's Temporal SDK latencies over the paced run, as booksync's worker's are read. */
  workerTasks: WorkerTaskLatencies;
}

/** The bare pipeline against booksync's paced acknowledged → booked: ratio = bare ÷ booksync (goal ≥ 0.7). */
export interface BareComparison extends BarePipelineResult {
  p50Ratio: number;
  p99Ratio: number;
  goal: number;
}

let bareBundle: Promise<string> | undefined;

/**
 * The bare workflow's bundle, built once a bench run and handed to each bare worker (the e2e stage starts
 * two), as booksync's workers get theirs. In a folder of the run's own, removed at exit: the bundle cache's
 * key covers booksync's sources, not bench/.
 */
function bareWorkflowBundle(): Promise<string> {
  bareBundle ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'booksync-bench-bare-bundle-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const workflowsPath = fileURLToPath(new URL('./bare-pipeline/workflow.ts', import.meta.url));
    return (await cachedWorkflowBundle({ workflowsPath, cacheDirs: [dir] })).codePath;
  })();
  return bareBundle;
}

async function shapeOf(client: Client, workflowId: string): Promise<HistoryShape> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  return {
    workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    activities: events.filter((e) => e.activityTaskScheduledEventAttributes).length,
    events: events.length,
  };
}

export async function benchBarePipeline(options: {
  env: TestWorkflowEnvironment;
  payments: number;
  pacedPerSecond: number;
  /** A folder for the pipeline's SQLite file. */
  dir: string;
  progress: (line: string) => void;
  /** A booksync payment workflow of the same run, whose history is counted beside the bare one. */
  booksyncWorkflowId: string;
}): Promise<BarePipelineResult> {
  const { env } = options;
  const taskQueue = `bench-bare-${process.pid}`;
  const dbPath = path.join(options.dir, 'bare-pipeline.db');
  options.progress('e2e: starting the bare pipeline worker (its own bundle)');
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const workflowBundlePath = await bareWorkflowBundle();
  const worker = await startChild(
    'bare-pipeline/worker.ts',
    {
      temporalAddress: env.address,
      namespace: env.namespace ?? 'default',
      taskQueue,
      dbPath,
      metricsPort,
      workflowBundlePath,
    },
    { startTimeoutMs: 180_000 },
  );
  try {
    // A few starts first, so the bare worker's first workflow task (its bundle loaded into a context) is
    // not counted, as booksync's worker had its own before the paced half (none either: it is the same).
    const run = Date.now().toString(36);
    const start = (id: string) =>
      env.client.workflow.signalWithStart(barePayment, {
        workflowId: `bare-${run}-${id}`,
        taskQueue,
        args: [{ paymentId: id }],
        signal: bareEventSignal,
        signalArgs: [{ eventId: `evt_${id}` }],
      });
    await Promise.all(['warm-0', 'warm-1', 'warm-2'].map(start));
    options.progress(`e2e: bare pipeline, ${options.payments} payments paced at ${options.pacedPerSecond}/s`);
    const acked = new Map<string, { sentAt: number; ackedAt: number }>();
    const sdkBefore = await sdkLatencies(metricsUrl);
    const begun = performance.now();
    await inParallel(options.payments, options.payments, async (i) => {
      const due = begun + (i * 1000) / options.pacedPerSecond;
      await sleep(Math.max(0, due - performance.now()));
      const id = `pay_${i}`;
      const sentAt = Date.now();
      await start(id);
      acked.set(id, { sentAt, ackedAt: Date.now() });
    });
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      const read = db.prepare('SELECT payment_id AS id, done_at AS doneAt FROM done WHERE payment_id LIKE ?');
      const deadline = Date.now() + 60_000 + options.payments * 500;
      let done: { id: string; doneAt: number }[] = [];
      for (;;) {
        done = read.all('pay_%') as { id: string; doneAt: number }[];
        if (done.length >= options.payments) break;
        if (Date.now() > deadline)
          throw new Error(`bare pipeline: only ${done.length} of ${options.payments} done in time`);
        await sleep(100);
      }
      const workerTasks = sdkSince(sdkBefore, await sdkLatencies(metricsUrl));
      const shape = {
        bare: await shapeOf(env.client, `bare-${run}-pay_0`),
        booksync: await shapeOf(env.client, options.booksyncWorkflowId),
      };
      return {
        payments: options.payments,
        offeredPerSecond: options.pacedPerSecond,
        signalWithStart: summarize([...acked.values()].map((a) => a.ackedAt - a.sentAt)),
        acknowledgedToDone: summarize(done.map((d) => d.doneAt - acked.get(d.id)!.ackedAt)),
        shape,
        workerTasks,
      };
    } finally {
      db.close();
    }
  } finally {
    await worker.stop();
  }
}
