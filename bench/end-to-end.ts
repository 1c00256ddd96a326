import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import { EmbeddedLedger } from '../src/accounting/embedded-ledger.js';
import { entryKeys } from '../src/accounting/entry-key.js';
import { createPaymentLink } from '../src/emulator/domain/payment-links.js';
import { SandboxClient } from '../src/emulator/sandbox-client.js';
import { seedDemo } from '../src/emulator/seed.js';
import { createEmulator } from '../src/emulator/server.js';
import { Store } from '../src/emulator/store/store.js';
import { createDeliveryWorker } from '../src/emulator/webhooks/delivery-worker.js';
import { TemporalDispatcher } from '../src/emulator/webhooks/temporal-dispatcher.js';
import { ServiceClient } from '../src/service/client.js';
import { startDevServer } from '../test/support/temporal.js';
import { benchDir, profileFlags, startChild, waitForExit } from './child.js';
import { onInterrupt } from './interrupt.js';
import { type ProcWindow, sampleProc } from './proc-stats.js';
import { ratio, type SecureSetup, secureGoals } from './secure.js';
import { inParallel, type LatencySummary, summarize } from './stats.js';

// Stage 3: the whole path, as `npm start` wires it, on a real Temporal dev server. A customer pays a link in
// the emulator (sandbox pay); the emulator's webhook goes out as a webhookDelivery workflow (the delivery
// worker runs in this process, next to the emulator); the ingress (child process) verifies it and
// signalWithStarts the payment workflow; booksync's worker (`node bin/booksync.js worker`, a child process)
// fetches the payment from the emulator and books it. Done when `payment:{id}` is in the ledger.
// First half paced (latency without a backlog), second half all at once (throughput). With `secure`, then a
// second whole stack (server, emulator's deliveries, ingress, worker) with encryption and tracing on (issue
// 32), its paced half only: end-to-end p99 on against the first run's paced p99.

export interface EndToEndOptions {
  payments: number;
  pacedPerSecond: number;
  profile?: string | undefined;
  progress: (line: string) => void;
  /** Encryption and tracing on for a second, paced-only run (bench/secure.ts); none: no such run. */
  secure?: SecureSetup | undefined;
  /** Node flags of the worker: README's for a worker holding many windows (the ACH stage's), as production runs. */
  workerNodeFlags: readonly string[];
  /** More environment for the worker (glibc's malloc bounds, as the image sets them). */
  workerEnv: Readonly<Record<string, string>>;
}

/** The paced phase again with every payload encrypted and every hop traced, against the plain one. */
export interface SecureEndToEndResult {
  paced: EndToEndPhase & { offeredPerSecond: number };
  workerStartSeconds: number;
  /** Pay-to-booked p99 on / off (the stage's paced phase); issue 32's goal ≤ 1.1. */
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
  paced: EndToEndPhase & { offeredPerSecond: number };
  burst: EndToEndPhase & { payConcurrency: number };
  /** The worker child process while it booked (start-up excluded), and VmHWM over its whole life. */
  worker: ProcWindow;
  workerStartSeconds: number;
  /** Mean syncPayment activity duration over both phases, from the worker's own /metrics. */
  syncPaymentActivity: { count: number; meanMs: number };
  /** Server-side time of the emulator on the worker's GETs (payment, payment link). */
  emulatorReads: LatencySummary;
  secure?: SecureEndToEndResult;
}

const rootDir = path.resolve(benchDir, '..');
const burstConcurrency = 8;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function benchEndToEnd(options: EndToEndOptions): Promise<EndToEndResult> {
  const { secure, ...plain } = options;
  const off = (await runEndToEnd(plain, { burst: true })) as EndToEndResult;
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
  run: { burst: boolean; secure?: SecureSetup },
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
    const env = await startDevServer();
    cleanups.push(() => env.teardown());

    const store = new Store({ dbPath: path.join(dir, 'emulator.db') });
    const demo = seedDemo(store);
    const orgId = demo.created.organization.id;
    // Links first, before any webhook subscription exists, so creating them sends nothing.
    const links = store.write((tx) =>
      Array.from(
        { length: options.payments },
        (_, i) => createPaymentLink(tx, orgId, { name: `BENCH-${i}`, requestedAmountCents: 10_000 + i }).id,
      ),
    );
    const deliveryQueue = `bench-deliveries-${process.pid}`;
    // Organizations and clock moves (E17).
    const adminToken = 'bench-admin-token-0123456789';
    const emulator = createEmulator({
      store,
      adminToken,
      dispatcher: new TemporalDispatcher({
        // With encryption on, the emulator's deliveries are encrypted too, as `booksync start` runs them.
        client: run.secure
          ? new Client({
              connection: env.connection,
              namespace: env.namespace ?? 'default',
              dataConverter: run.secure.encryption.dataConverter,
            })
          : env.client,
        taskQueue: deliveryQueue,
      }),
    });
    // How long the emulator itself takes on the worker's reads (server side, from request to response).
    const emulatorReadMs: number[] = [];
    emulator.app.addHook('onResponse', async (request, reply) => {
      if (request.method === 'GET' && !request.url.startsWith('/sandbox'))
        emulatorReadMs.push(reply.elapsedTime);
    });
    const emulatorUrl = await emulator.app.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(async () => {
      await emulator.app.close();
      store.close();
    });
    const deliveryWorker = await createDeliveryWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue: deliveryQueue,
      store,
      ...(run.secure ? { dataConverter: run.secure.encryption.dataConverter } : {}),
    });
    const deliveryRun = deliveryWorker.run();
    cleanups.push(async () => {
      if (deliveryWorker.getState() === 'RUNNING') deliveryWorker.shutdown();
      await deliveryRun;
    });

    const service = new ServiceClient({ baseUrl: emulatorUrl, apiKey: demo.apiKey });
    const ingressPort = await freePort();
    const subscription = await service.createWebhook({
      url: `http://127.0.0.1:${ingressPort}/webhooks/service`,
    });
    if (!subscription.secret) throw new Error('the emulator created an unsigned subscription');
    const taskQueue = `bench-booksync-${process.pid}`;
    const ingress = await startChild<{ address: string }>(
      'ingress-server.ts',
      {
        temporalAddress: env.address,
        taskQueue,
        secrets: [subscription.secret],
        port: ingressPort,
        ...(run.secure ? { secure: true } : {}),
      },
      run.secure ? { env: run.secure.env } : {},
    );
    cleanups.push(() => ingress.stop());

    options.progress('e2e: starting the worker (node bin/booksync.js worker; it bundles the workflows)');
    const ledgerPath = path.join(dir, 'ledger.db');
    const metricsPort = await freePort();
    const workerStarted = performance.now();
    const worker = spawn(
      process.execPath,
      [
        ...profileFlags(options.profile),
        ...options.workerNodeFlags,
        path.join(rootDir, 'bin', 'booksync.js'),
        'worker',
      ],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: env.address,
          TEMPORAL_TASK_QUEUE: taskQueue,
          SERVICE_BASE_URL: emulatorUrl,
          SERVICE_API_KEY: demo.apiKey,
          LEDGER_DB: ledgerPath,
          BOOKSYNC_DATA_DIR: dir,
          METRICS_PORT: String(metricsPort),
          LOG_LEVEL: 'warn',
          LOG_FORMAT: 'json',
          ...options.workerEnv,
          ...run.secure?.env,
        },
      },
    );
    cleanups.push(() => {
      worker.kill('SIGTERM');
      return waitForExit(worker, 30_000);
    });
    await waitForReady(`http://127.0.0.1:${metricsPort}/readyz`, worker.pid!, 180_000);
    const workerStartSeconds = Math.round((performance.now() - workerStarted) / 100) / 10;

    const ledger = EmbeddedLedger.open({ path: ledgerPath });
    cleanups.push(() => ledger.close());
    const sandbox = new SandboxClient({ baseUrl: emulatorUrl, apiKey: demo.apiKey, adminToken });
    const sampler = sampleProc(worker.pid!);

    const half = Math.floor(options.payments / 2);
    options.progress(`e2e: ${half} payments paced at ${options.pacedPerSecond}/s`);
    const paced = await phase(links.slice(0, half), sandbox, ledger, store, async (pay) => {
      const started = performance.now();
      await inParallel(half, half, async (i) => {
        const due = started + (i * 1000) / options.pacedPerSecond;
        await sleep(Math.max(0, due - performance.now()));
        await pay(i);
      });
    });
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
    const syncPaymentActivity = await activityDuration(
      `http://127.0.0.1:${metricsPort}/metrics`,
      'syncPayment',
    );
    return {
      paced: { ...paced, offeredPerSecond: options.pacedPerSecond },
      burst: burst ? { ...burst, payConcurrency: burstConcurrency } : null,
      worker: worker_,
      workerStartSeconds,
      syncPaymentActivity,
      emulatorReads: summarize(emulatorReadMs),
    };
  } finally {
    forget();
    await cleanup();
  }
}

/** Sum and count of booksync_activity_duration_seconds for one activity, from Prometheus text. */
async function activityDuration(url: string, activity: string): Promise<{ count: number; meanMs: number }> {
  const text = await (await fetch(url)).text();
  const total = (suffix: string) =>
    text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith(`booksync_activity_duration_seconds_${suffix}{`) && line.includes(`"${activity}"`),
      )
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  const count = total('count');
  return { count, meanMs: count === 0 ? Number.NaN : Math.round((total('sum') / count) * 10_000) / 10 };
}

async function waitForReady(url: string, pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    try {
      process.kill(pid, 0);
    } catch {
      throw new Error('the worker exited before it was ready');
    }
    await sleep(250);
  }
  throw new Error(`worker not ready after ${timeoutMs} ms`);
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
): Promise<EndToEndPhase> {
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
