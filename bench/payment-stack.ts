import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPaymentLink } from '@booksync/emulator/domain/payment-links';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { seedDemo } from '@booksync/emulator/seed';
import { createEmulator } from '@booksync/emulator/server';
import { Store } from '@booksync/emulator/store/store';
import { createDeliveryWorker, deliveryWorkflowsPath } from '@booksync/emulator/webhooks/delivery-worker';
import { DirectHttpDispatcher } from '@booksync/emulator/webhooks/direct-http-dispatcher';
import { TemporalDispatcher } from '@booksync/emulator/webhooks/temporal-dispatcher';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { EmbeddedLedger } from '../src/ledger/embedded-ledger.js';
import { cachedWorkflowBundle } from '../src/runtime/worker/workflow-bundle.js';
import { ServiceClient } from '../src/service/client.js';
import { startDevServer } from '../test/support/temporal.js';
import { benchDir, profileFlags, startChild, waitForExit } from './child.js';
import type { SecureSetup } from './secure.js';

// The whole path as `npm start` wires it, for the stages that drive card payments through it (e2e, latency):
// a Temporal dev server; the emulator with the Temporal webhook dispatcher and its delivery worker (in the
// bench process); the ingress (child process) subscribed to the emulator's webhooks; booksync's worker
// (`node bin/booksync.js worker`, a child process) on its own ledger file, with whatever more settings the
// stage gives it (an accounting target). `links` payment links are made before any webhook subscription
// exists, so making them sends nothing. Every part is registered in `cleanups` (run last to first).

export interface PaymentStackOptions {
  /** Names the progress lines and the task queue. */
  label: string;
  links: number;
  progress: (line: string) => void;
  profile?: string | undefined;
  /** Encryption and tracing on (bench/secure.ts) in the ingress, the deliveries and the worker. */
  secure?: SecureSetup | undefined;
  workerNodeFlags: readonly string[];
  workerEnv: Readonly<Record<string, string>>;
  /** A file the worker's log lines (stdout) are appended to; none: discarded. */
  workerLog?: string | undefined;
  /**
   * How the emulator delivers its webhooks: as `npm start` does, a webhookDelivery workflow and activity per
   * event on the same Temporal server as booksync (default); or `direct`, HTTP from the emulator's process
   * with the same signing and retries, as the real service sends them from its own infrastructure.
   */
  deliveries?: 'temporal' | 'direct';
}

export interface PaymentStack {
  env: TestWorkflowEnvironment;
  store: Store;
  links: string[];
  sandbox: SandboxClient;
  ledger: EmbeddedLedger;
  /** Server-side times of the emulator's answers to the worker's GETs, as they come. */
  emulatorReadMs: number[];
  worker: ChildProcess;
  metricsUrl: string;
  /** The Temporal SDK's own metrics of the worker (TEMPORAL_SDK_METRICS_PORT): task latencies. */
  sdkMetricsUrl: string;
  workerStartSeconds: number;
}

const rootDir = path.resolve(benchDir, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startPaymentStack(
  options: PaymentStackOptions,
  dir: string,
  cleanups: (() => Promise<void> | void)[],
): Promise<PaymentStack> {
  const { secure } = options;
  const env = await startDevServer();
  cleanups.push(() => env.teardown());

  const store = new Store({ dbPath: path.join(dir, 'emulator.db') });
  const demo = seedDemo(store);
  const orgId = demo.created.organization.id;
  const links = store.write((tx) =>
    Array.from(
      { length: options.links },
      (_, i) => createPaymentLink(tx, orgId, { name: `BENCH-${i}`, requestedAmountCents: 10_000 + i }).id,
    ),
  );
  const deliveryQueue = `bench-deliveries-${options.label}-${process.pid}`;
  // Organizations and clock moves (E17).
  const adminToken = 'bench-admin-token-0123456789';
  const direct = options.deliveries === 'direct';
  const emulator = createEmulator({
    store,
    adminToken,
    dispatcher: direct
      ? new DirectHttpDispatcher({ store })
      : new TemporalDispatcher({
          // With encryption on, the emulator's deliveries are encrypted too, as `booksync start` runs them.
          client: secure
            ? new Client({
                connection: env.connection,
                namespace: env.namespace ?? 'default',
                dataConverter: secure.encryption.dataConverter,
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
  if (!direct) {
    // The deliveries' bundle cached as `booksync start` caches it (built once per change of the sources,
    // not once per stack); with encryption on, the one carrying its failure converter.
    const deliveryBundle = await cachedWorkflowBundle({
      workflowsPath: deliveryWorkflowsPath,
      ...(secure ? { failureConverterPath: secure.encryption.dataConverter.failureConverterPath } : {}),
    });
    const deliveryWorker = await createDeliveryWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue: deliveryQueue,
      store,
      workflowBundle: { codePath: deliveryBundle.codePath },
      ...(secure ? { dataConverter: secure.encryption.dataConverter } : {}),
    });
    const deliveryRun = deliveryWorker.run();
    cleanups.push(async () => {
      if (deliveryWorker.getState() === 'RUNNING') deliveryWorker.shutdown();
      await deliveryRun;
    });
  }

  const service = new ServiceClient({ baseUrl: emulatorUrl, apiKey: demo.apiKey });
  const ingressPort = await freePort();
  const subscription = await service.createWebhook({
    url: `http://127.0.0.1:${ingressPort}/webhooks/service`,
  });
  if (!subscription.secret) throw new Error('the emulator created an unsigned subscription');
  const taskQueue = `bench-booksync-${options.label}-${process.pid}`;
  const ingress = await startChild<{ address: string }>(
    'ingress-server.ts',
    {
      temporalAddress: env.address,
      taskQueue,
      secrets: [subscription.secret],
      port: ingressPort,
      ...(secure ? { secure: true } : {}),
    },
    secure ? { env: secure.env } : {},
  );
  cleanups.push(() => ingress.stop());

  options.progress(`${options.label}: starting the worker (node bin/booksync.js worker)`);
  const ledgerPath = path.join(dir, 'ledger.db');
  const metricsPort = await freePort();
  const sdkMetricsPort = await freePort();
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
      stdio: ['ignore', options.workerLog ? openSync(options.workerLog, 'a') : 'ignore', 'inherit'],
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: env.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        SERVICE_BASE_URL: emulatorUrl,
        SERVICE_API_KEY: demo.apiKey,
        LEDGER_DB: ledgerPath,
        BOOKSYNC_DATA_DIR: dir,
        METRICS_PORT: String(metricsPort),
        TEMPORAL_SDK_METRICS_PORT: String(sdkMetricsPort),
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        ...options.workerEnv,
        ...secure?.env,
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
  return {
    env,
    store,
    links,
    sandbox,
    ledger,
    emulatorReadMs,
    worker,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    sdkMetricsUrl: `http://127.0.0.1:${sdkMetricsPort}/metrics`,
    workerStartSeconds,
  };
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

/** Sum and count of booksync_activity_duration_seconds for one activity, from Prometheus text. */
export async function activityDuration(
  url: string,
  activity: string,
): Promise<{ count: number; meanMs: number }> {
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

/** A worker's Temporal SDK latency histograms: name → count and mean. */
export type WorkerTaskLatencies = Record<string, { count: number; meanMs: number }>;

/** Mean of each of the worker's Temporal SDK latency histograms (count and mean ms), from Prometheus text. */
export async function sdkLatencies(url: string): Promise<WorkerTaskLatencies> {
  const text = await (await fetch(url)).text();
  const sums = new Map<string, { sum: number; count: number }>();
  for (const line of text.split('\n')) {
    const m = /^temporal_([a-z_]+)_seconds_(sum|count)(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (!m) continue;
    const entry = sums.get(m[1]!) ?? { sum: 0, count: 0 };
    entry[m[2] as 'sum' | 'count'] += Number(m[3]);
    sums.set(m[1]!, entry);
  }
  return Object.fromEntries(
    [...sums].map(([name, { sum, count }]) => [
      name,
      { count, meanMs: count === 0 ? Number.NaN : Math.round((sum / count) * 10_000) / 10 },
    ]),
  );
}

/** The histograms' counts and means between two scrapes. */
export function sdkSince(before: WorkerTaskLatencies, after: WorkerTaskLatencies): WorkerTaskLatencies {
  const out: WorkerTaskLatencies = {};
  for (const [name, a] of Object.entries(after)) {
    const b = before[name] ?? { count: 0, meanMs: 0 };
    const count = a.count - b.count;
    if (count <= 0) continue;
    const meanMs = (a.meanMs * a.count - b.meanMs * b.count) / count;
    out[name] = { count, meanMs: Math.round(meanMs * 10) / 10 };
  }
  return out;
}
