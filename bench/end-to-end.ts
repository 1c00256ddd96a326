import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxClient } from '@booksync/emulator/sandbox-client';
import type { Store } from '@booksync/emulator/store/store';
import { paymentWorkflowId } from '../src/flows/payment/contract.js';
import type { EmbeddedLedger } from '../src/ledger/embedded-ledger.js';
import { entryKeys } from '../src/ledger/entry-key.js';
import {
  type BareComparison,
  type BarePipelineResult,
  barePipelineGoal,
  benchBarePipeline,
} from './bare-pipeline.js';
import { onInterrupt } from './interrupt.js';
import {
  activityDuration,
  sdkLatencies,
  sdkSince,
  startPaymentStack,
  type WorkerTaskLatencies,
} from './payment-stack.js';
import { type ProcWindow, sampleProc } from './proc-stats.js';
import { ratio, type SecureSetup, secureGoals } from './secure.js';
import { inParallel, type LatencySummary, summarize } from './stats.js';

// Stage 3: the whole path, as `npm start` wires it, on a real Temporal dev server. A customer pays a link in
// the emulator (sandbox pay); the emulator's webhook goes out as a webhookDelivery workflow (the delivery
// worker runs in this process, next to the emulator); the ingress (child process) verifies it and
// signalWithStarts the payment workflow; booksync's worker (`node bin/booksync.js worker`, a child process)
// fetches the payment from the emulator and books it. Done when `payment:{id}` is in the ledger.
// First half paced (latency without a backlog), second half all at once (throughput). Between the two, the
// bare pipeline (bench/bare-pipeline.ts) on the same server at the paced rate: booksync's own part of the
// acknowledged → booked hop is its p50 and p99 against the bare acknowledged → done. With `secure`, then a
// second whole stack (server, emulator's deliveries, ingress, worker) with encryption and tracing on, its
// paced half only: end-to-end p99 on against the first run's paced p99.

export interface EndToEndOptions {
  payments: number;
  pacedPerSecond: number;
  profile?: string | undefined;
  progress: (line: string) => void;
  /** Encryption and tracing on for a second, paced-only run (bench/secure.ts); none: no such run. */
  secure?: SecureSetup | undefined;
  /** Node flags of the worker: docs/configuration.md's for a worker holding many windows (the ACH stage's), as production runs. */
  workerNodeFlags: readonly string[];
  /** More environment for the worker (glibc's malloc bounds, as the image sets them). */
  workerEnv: Readonly<Record<string, string>>;
}

/** The paced phase again with every payload encrypted and every hop traced, against the plain one. */
export interface SecureEndToEndResult {
  paced: EndToEndPhase & { offeredPerSecond: number };
  workerStartSeconds: number;
  /** Pay-to-booked p99 on / off (the stage's paced phase); the goal ≤ 1.1. */
  p99Ratio: number;
  /** The same for the median, less noisy with few payments. */
  p50Ratio: number;
  goal: number;
  /** Trace export requests the OTLP sink took during the run: tracing was on. */
  traceExports: number;
}

export interface EndToEndPhase {
  payments: number;
  /** First pay call to last entry booked. */
  seconds: number;
  bookedPerSecond: number;
  /** From the pay call (client side) to the ledger's createdAt of payment:{id}. */
  payToBooked: LatencySummary;
  /** From the payment.made event's created_at (the payment's createdAt) to the entry's createdAt. */
  emittedToBooked: LatencySummary;
  /** Where the time went, per payment, from the emulator's delivery log (first 2xx attempt of payment.made). */
  hops: {
    /** Event created to its delivery attempt starting: the webhookDelivery workflow and its activity. */
    emittedToDeliveryAttempt: LatencySummary;
    /** The HTTP POST to the ingress: verification, envelope, signalWithStart. */
    deliveryAttempt: LatencySummary;
    /** Acknowledged to booked: the payment workflow's task, syncPayment (GET payment, ledger write). */
    acknowledgedToBooked: LatencySummary;
  };
}

export interface EndToEndResult {
  /** workerTasks: where acked → booked went inside the worker and its server requests. */
  paced: EndToEndPhase & { offeredPerSecond: number; workerTasks?: WorkerTaskLatencies };
  burst: EndToEndPhase & { payConcurrency: number };
  /** The worker child process while it booked (start-up excluded), and VmHWM over its whole life. */
  worker: ProcWindow;
  workerStartSeconds: number;
  /** Mean syncPayment activity duration over both phases, from the worker's own /metrics. */
  syncPaymentActivity: { count: number; meanMs: number };
  /** Server-side time of the emulator on the worker's GETs (payment, payment link). */
  emulatorReads: LatencySummary;
  /** The bare Temporal pipeline of the same shape, paced like the paced half, against its acked → booked. */
  bare?: BareComparison;
  /**
   * The paced half and the bare pipeline on another whole stack whose emulator sends its webhooks by HTTP
   * from its own process (as the real service does), so the Temporal server carries booksync's work only.
   */
  directDeliveries?: {
    paced: EndToEndResult['paced'];
    bare: BareComparison;
    worker: ProcWindow;
  };
  secure?: SecureEndToEndResult;
}

const burstConcurrency = 8;
const warmupPayments = 5;

export async function benchEndToEnd(options: EndToEndOptions): Promise<EndToEndResult> {
  const { secure, ...plain } = options;
  const wired = (await runEndToEnd(plain, { burst: true })) as EndToEndResult;
  // booksync's own part again with the webhooks sent as the real service sends them, from outside booksync's
  // Temporal server: the paced half and the bare pipeline on a server that carries booksync's work only.
  options.progress(
    'e2e: again with the webhooks sent by HTTP from the emulator (off the server), the paced half',
  );
  const direct = await runEndToEnd(
    { ...plain, profile: undefined },
    { burst: false, bare: true, deliveries: 'direct' },
  );
  const off: EndToEndResult = {
    ...wired,
    ...(direct.bare
      ? { directDeliveries: { paced: direct.paced, bare: direct.bare, worker: direct.worker } }
      : {}),
  };
  if (!secure) return off;
  const exportsBefore = secure.exports();
  options.progress('e2e: again with encryption and tracing on (PAYLOAD_KEYS, OTEL_*), the paced half');
  const on = await runEndToEnd({ ...plain, profile: undefined }, { burst: false, secure });
  return {
    ...off,
    secure: {
      paced: on.paced,
      workerStartSeconds: on.workerStartSeconds,
      p99Ratio: ratio(on.paced.payToBooked.p99Ms, off.paced.payToBooked.p99Ms),
      p50Ratio: ratio(on.paced.payToBooked.p50Ms, off.paced.payToBooked.p50Ms),
      goal: secureGoals.endToEndP99RatioAtMost,
      traceExports: secure.exports() - exportsBefore,
    },
  };
}

async function runEndToEnd(
  options: EndToEndOptions,
  run: { burst: boolean; bare?: boolean; secure?: SecureSetup; deliveries?: 'temporal' | 'direct' },
): Promise<Omit<EndToEndResult, 'burst'> & { burst: EndToEndResult['burst'] | null }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'booksync-bench-e2e-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) {
      await Promise.resolve(step()).catch((error) => options.progress(`e2e: cleanup: ${String(error)}`));
    }
  };
  const forget = onInterrupt(cleanup);
  try {
    const stack = await startPaymentStack(
      {
        label: 'e2e',
        links: warmupPayments + options.payments,
        progress: options.progress,
        profile: options.profile,
        secure: run.secure,
        workerNodeFlags: options.workerNodeFlags,
        workerEnv: options.workerEnv,
        deliveries: run.deliveries ?? 'temporal',
      },
      dir,
      cleanups,
    );
    const { sandbox, ledger, store } = stack;
    // A few payments one by one first, not counted: the worker's first tasks (JIT, its first statements,
    // pollers ramping up) would otherwise land in the paced half, and the bare pipeline warms up too.
    await phase(stack.links.slice(0, warmupPayments), sandbox, ledger, store, (pay) =>
      inParallel(warmupPayments, 1, pay),
    );
    const links = stack.links.slice(warmupPayments);
    const sampler = sampleProc(stack.worker.pid!);

    const half = Math.floor(options.payments / 2);
    options.progress(`e2e: ${half} payments paced at ${options.pacedPerSecond}/s`);
    const sdkBefore = await sdkLatencies(stack.sdkMetricsUrl);
    const paced = await phase(links.slice(0, half), sandbox, ledger, store, (pay) =>
      payPaced(half, options.pacedPerSecond, pay),
    );
    const workerTasks = sdkSince(sdkBefore, await sdkLatencies(stack.sdkMetricsUrl));
    // The same shape bare, on the same server at the same rate, while booksync's stack sits idle beside it.
    const bare =
      (run.bare ?? run.burst)
        ? await benchBarePipeline({
            env: stack.env,
            payments: half,
            pacedPerSecond: options.pacedPerSecond,
            dir,
            progress: options.progress,
            booksyncWorkflowId: paymentWorkflowId(paced.paymentIds[0]!),
          })
        : null;
    const burst = run.burst
      ? await (async () => {
          options.progress(
            `e2e: ${options.payments - half} payments at once (${burstConcurrency} pay calls in flight)`,
          );
          return phase(links.slice(half), sandbox, ledger, store, (pay) =>
            inParallel(options.payments - half, burstConcurrency, pay),
          );
        })()
      : null;
    const worker_ = sampler.stop();
    const syncPaymentActivity = await activityDuration(stack.metricsUrl, 'syncPayment');
    return {
      paced: { ...withoutIds(paced), offeredPerSecond: options.pacedPerSecond, workerTasks },
      ...(bare ? { bare: barePair(bare, paced) } : {}),
      burst: burst ? { ...withoutIds(burst), payConcurrency: burstConcurrency } : null,
      worker: worker_,
      workerStartSeconds: stack.workerStartSeconds,
      syncPaymentActivity,
      emulatorReads: summarize(stack.emulatorReadMs),
    };
  } finally {
    forget();
    await cleanup();
  }
}

/** `count` calls of `pay`, the i-th due i / perSecond seconds after the first (open loop). */
export async function payPaced(
  count: number,
  perSecond: number,
  pay: (index: number) => Promise<void>,
): Promise<void> {
  const started = performance.now();
  await inParallel(count, count, async (i) => {
    const due = started + (i * 1000) / perSecond;
    await sleep(Math.max(0, due - performance.now()));
    await pay(i);
  });
}

const withoutIds = ({ paymentIds: _, ...rest }: EndToEndPhase & { paymentIds: string[] }): EndToEndPhase =>
  rest;

/** booksync's acknowledged → booked against the bare pipeline's acknowledged → done, p50 and p99. */
function barePair(bare: BarePipelineResult, paced: EndToEndPhase): BareComparison {
  const booksync = paced.hops.acknowledgedToBooked;
  return {
    ...bare,
    p50Ratio: ratio(bare.acknowledgedToDone.p50Ms, booksync.p50Ms),
    p99Ratio: ratio(bare.acknowledgedToDone.p99Ms, booksync.p99Ms),
    goal: barePipelineGoal,
  };
}

interface Paid {
  paymentId: string;
  payStartedAt: number;
  emittedAt: number;
}

async function phase(
  links: string[],
  sandbox: SandboxClient,
  ledger: EmbeddedLedger,
  store: Store,
  drive: (pay: (index: number) => Promise<void>) => Promise<void>,
): Promise<EndToEndPhase & { paymentIds: string[] }> {
  const paid: Paid[] = [];
  const started = Date.now();
  await drive(async (i) => {
    const payStartedAt = Date.now();
    const payment = await sandbox.payLink(links[i]!, 'Card');
    paid.push({ paymentId: payment.id, payStartedAt, emittedAt: payment.createdAt });
  });
  const booked = new Map<string, number>();
  const deadline = Date.now() + 120_000 + links.length * 500;
  while (booked.size < paid.length) {
    if (Date.now() > deadline)
      throw new Error(`only ${booked.size} of ${paid.length} payments booked in time`);
    await sleep(200);
    for (const p of paid) {
      if (booked.has(p.paymentId)) continue;
      const entry = await ledger.get(entryKeys.payment(p.paymentId));
      if (entry) booked.set(p.paymentId, Date.parse(entry.createdAt));
    }
  }
  const lastBooked = Math.max(...booked.values());
  const attempt = store.db.prepare(
    `SELECT a.attempted_at AS attemptedAt, a.duration_ms AS durationMs FROM events e
       JOIN delivery_attempts a ON a.event_id = e.id AND a.status_code BETWEEN 200 AND 299
      WHERE e.associated_object_id = ? AND e.category = 'payment.made' ORDER BY a.id LIMIT 1`,
  );
  const hops = paid.flatMap((p) => {
    const row = attempt.get(p.paymentId) as { attemptedAt: string; durationMs: number } | undefined;
    if (!row) return [];
    const attemptedAt = Date.parse(row.attemptedAt);
    return [
      {
        queued: attemptedAt - p.emittedAt,
        post: row.durationMs,
        book: booked.get(p.paymentId)! - attemptedAt - row.durationMs,
      },
    ];
  });
  const seconds = (lastBooked - started) / 1000;
  return {
    paymentIds: paid.map((p) => p.paymentId),
    payments: paid.length,
    seconds: Math.round(seconds * 100) / 100,
    bookedPerSecond: Math.round((paid.length / seconds) * 10) / 10,
    payToBooked: summarize(paid.map((p) => booked.get(p.paymentId)! - p.payStartedAt)),
    emittedToBooked: summarize(paid.map((p) => booked.get(p.paymentId)! - p.emittedAt)),
    hops: {
      emittedToDeliveryAttempt: summarize(hops.map((h) => h.queued)),
      deliveryAttempt: summarize(hops.map((h) => h.post)),
      acknowledgedToBooked: summarize(hops.map((h) => h.book)),
    },
  };
}
