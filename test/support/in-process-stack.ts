import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { ActivityDependencies } from '../../activities/index.js';
import { seedDemo } from '../../src/emulator/seed.js';
import { createEmulator, type Emulator } from '../../src/emulator/server.js';
import { Store } from '../../src/emulator/store/store.js';
import { DirectHttpDispatcher } from '../../src/emulator/webhooks/direct-http-dispatcher.js';
import type { WebhookDispatcher } from '../../src/emulator/webhooks/dispatcher.js';
import { type RunningIngress, startIngress } from '../../src/ingress/main.js';
import type { IngressOptions } from '../../src/ingress/server.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { type Logger, silentLogger } from '../../src/logging/logger.js';
import { ServiceClient } from '../../src/service/client.js';
import { createBooksyncWorker } from '../../src/worker/booksync-worker.js';
import { freePort } from './free-port.js';
import { uniqueTaskQueue, workflowBundle } from './temporal.js';

// booksync in-process on loopback, its worker and ingress built as the composition root builds them
// (createBooksyncWorker with the real activities, startIngress on an existing Temporal client), beside an
// emulator over HTTP. Two halves: the service side (startInProcessEmulator: the emulator seeded with the demo
// organization, its webhook dispatcher) and the books side (startInProcessBooks: worker, ingress and the
// subscription pointing at it, over a given emulator and ledger). startInProcessStack is both with a ledger
// file; the E2E stack keeps one service side and starts books sides over it; the workflow and command API
// stacks are thin uses. The emulator start and seed, the subscription, the ingress and worker starts and
// the close order are written here only.

/** Runs every step, last pushed first, even when one fails; then throws the first failure. */
function closer(): { push(step: () => Promise<void> | void): void; close(): Promise<void> } {
  const steps: (() => Promise<void> | void)[] = [];
  return {
    push: (step) => {
      steps.push(step);
    },
    async close() {
      let failure: unknown;
      for (const step of steps.splice(0).reverse()) {
        try {
          await step();
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure) throw failure;
    },
  };
}

export interface InProcessEmulatorOptions {
  /** Organizations and clock moves (E17). */
  adminToken: string;
  dispatcher: (store: Store) => WebhookDispatcher;
  /** SQLite file of the emulator; default in memory. */
  dbPath?: string;
  serviceTimeoutMs?: number;
  /** The emulator's log; default silent. */
  logger?: Logger;
  /** The service client's log; default silent. */
  serviceLogger?: Logger;
}

/** The emulator over HTTP on loopback with the demo organization seeded, and a client as its key. */
export interface InProcessEmulator {
  emulator: Emulator;
  serviceUrl: string;
  apiKey: string;
  service: ServiceClient;
  /** Every direct webhook delivery under way has finished (delivered or its attempts spent). */
  deliveriesIdle(): Promise<void>;
  /** Deliveries under way (waited for at most `deliveriesWithinMs`, default until done), the listener, the store. */
  close(options?: { deliveriesWithinMs?: number }): Promise<void>;
}

export async function startInProcessEmulator(options: InProcessEmulatorOptions): Promise<InProcessEmulator> {
  const store = new Store({ dbPath: options.dbPath ?? ':memory:' });
  const { apiKey } = seedDemo(store);
  const emulator = createEmulator({
    store,
    adminToken: options.adminToken,
    dispatcher: options.dispatcher,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const deliveriesIdle = async () => {
    const { dispatcher } = emulator;
    if (dispatcher instanceof DirectHttpDispatcher) await dispatcher.idle();
  };
  const close = async (closing: { deliveriesWithinMs?: number } = {}) => {
    try {
      const within = closing.deliveriesWithinMs;
      await (within === undefined ? deliveriesIdle() : Promise.race([deliveriesIdle(), sleep(within)]));
      await emulator.app.close();
    } finally {
      store.close();
    }
  };
  let serviceUrl: string;
  try {
    serviceUrl = await emulator.app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  const service = new ServiceClient({
    baseUrl: serviceUrl,
    apiKey,
    ...(options.serviceTimeoutMs !== undefined ? { timeoutMs: options.serviceTimeoutMs } : {}),
    ...(options.serviceLogger ? { logger: options.serviceLogger } : {}),
  });
  return { emulator, serviceUrl, apiKey, service, deliveriesIdle, close };
}

export interface InProcessBooksOptions {
  env: TestWorkflowEnvironment;
  /** Default: the shared bundle of booksync's workflows. */
  bundle?: { codePath: string };
  taskQueuePrefix: string;
  /** The client the worker's activities call the emulator with (and the subscription is made with). */
  service: ServiceClient;
  /** Left open on close: the caller's. */
  ledger: EmbeddedLedger;
  /** The ingress logs as component 'ingress', the activities as 'activities'. Default silent. */
  logger?: Logger;
  checkWindows?: ActivityDependencies['checkWindows'];
  /** BOOKS_TIME_ZONE of the activities (default UTC). */
  timeZone?: string;
  /**
   * 'subscribe': the emulator's subscription points at the ingress, which verifies its secret (the default);
   * 'unsubscribed': no subscription and no ingress until webhooksToIngress; { secrets }: no subscription, the
   * ingress verifies these.
   */
  webhooks?: 'subscribe' | 'unsubscribed' | { secrets: string[] };
  /** Command API settings of the ingress, and the console it serves. */
  ingress?: Pick<
    IngressOptions,
    'commandApiKey' | 'commandAnswerWithinMs' | 'returnedCheckFeeCents' | 'console'
  >;
  /** Accounting targets the worker's push activities write to (their index, references). */
  targets?: ActivityDependencies['targets'];
}

/** booksync's worker and ingress on one task queue, the ingress on one port for the books side's life. */
export interface InProcessBooks {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  ingressUrl: string;
  /** The subscription pointing at the ingress (the last webhooksToIngress), if any. */
  readonly subscription: { id: string; secret: string } | undefined;
  /** The running worker (undefined between stopWorker and startWorker). */
  readonly worker: Worker | undefined;
  /** No worker polls until startWorker: Temporal holds what comes. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  /** A new subscription pointing at the ingress; the ingress restarts on its port verifying its secret. */
  webhooksToIngress(): Promise<string>;
  /** The ingress (intake first), then the worker. */
  close(): Promise<void>;
}

export async function startInProcessBooks(options: InProcessBooksOptions): Promise<InProcessBooks> {
  const { env, service, ledger } = options;
  const logger = options.logger ?? silentLogger;
  const taskQueue = uniqueTaskQueue(options.taskQueuePrefix);
  const closing = closer();
  try {
    // The worker, as startBooksyncWorker builds it (its dependencies without targets, metrics or Schedules).
    const bundle = options.bundle ?? (await workflowBundle());
    let worker: { worker: Worker; run: Promise<void> } | undefined;
    const stopWorker = async () => {
      if (!worker) return;
      const stopping = worker;
      worker = undefined;
      if (stopping.worker.getState() === 'RUNNING') stopping.worker.shutdown();
      await stopping.run;
    };
    const startWorker = async () => {
      const created = await createBooksyncWorker({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue,
        workflowBundle: bundle,
        dependencies: {
          service,
          ledger,
          logger: logger.child({ component: 'activities' }),
          timeZone: options.timeZone ?? 'UTC',
          ...(options.checkWindows ? { checkWindows: options.checkWindows } : {}),
          ...(options.targets ? { targets: options.targets } : {}),
        },
      });
      worker = { worker: created, run: created.run() };
    };
    closing.push(stopWorker);

    const ingressPort = await freePort();
    const ingressUrl = `http://127.0.0.1:${ingressPort}`;
    let ingress: RunningIngress | undefined;
    const startIngressWith = async (secrets: string[]) => {
      await ingress?.close();
      ingress = undefined;
      ingress = await startIngress({
        host: '127.0.0.1',
        port: ingressPort,
        temporal: { client: env.client },
        taskQueue,
        webhookSecrets: secrets,
        logger: logger.child({ component: 'ingress' }),
        ...options.ingress,
      });
    };
    closing.push(async () => {
      await ingress?.close();
    });
    let subscription: { id: string; secret: string } | undefined;
    const webhooksToIngress = async () => {
      const created = await service.createWebhook({ url: `${ingressUrl}/webhooks/service` });
      if (!created.secret) throw new Error('the emulator created an unsigned subscription');
      subscription = { id: created.id, secret: created.secret };
      await startIngressWith([created.secret]);
      return created.secret;
    };

    await startWorker();
    const webhooks = options.webhooks ?? 'subscribe';
    if (webhooks === 'subscribe') await webhooksToIngress();
    else if (webhooks !== 'unsubscribed') await startIngressWith(webhooks.secrets);

    return {
      env,
      taskQueue,
      ingressUrl,
      get subscription() {
        return subscription;
      },
      get worker() {
        return worker?.worker;
      },
      stopWorker,
      startWorker,
      webhooksToIngress,
      close: closing.close,
    };
  } catch (error) {
    await closing.close().catch(() => undefined);
    throw error;
  }
}

export interface InProcessStackOptions
  extends Omit<InProcessBooksOptions, 'service' | 'ledger'>,
    Omit<InProcessEmulatorOptions, 'dispatcher'> {
  /** Waits between direct delivery attempts, and each attempt's timeout. */
  delivery: { backoffMs: readonly number[]; timeoutMs?: number };
}

export interface InProcessStack extends Omit<InProcessBooks, 'close'>, Omit<InProcessEmulator, 'close'> {
  ledger: EmbeddedLedger;
  /** The books side, then the service side (deliveries under way first), the ledger and its folder. */
  close(): Promise<void>;
}

/** Both halves: the emulator with direct webhook dispatch, a ledger file in a temp folder, worker and ingress. */
export async function startInProcessStack(options: InProcessStackOptions): Promise<InProcessStack> {
  const closing = closer();
  try {
    const dir = mkdtempSync(path.join(tmpdir(), 'booksync-stack-'));
    closing.push(() => rmSync(dir, { recursive: true, force: true }));
    const ledger = EmbeddedLedger.open({ path: path.join(dir, 'ledger.db') });
    closing.push(() => ledger.close());
    const { delivery } = options;
    const emulator = await startInProcessEmulator({
      adminToken: options.adminToken,
      ...(options.dbPath !== undefined ? { dbPath: options.dbPath } : {}),
      ...(options.serviceTimeoutMs !== undefined ? { serviceTimeoutMs: options.serviceTimeoutMs } : {}),
      dispatcher: (store) =>
        new DirectHttpDispatcher({
          store,
          backoffMs: delivery.backoffMs,
          ...(delivery.timeoutMs !== undefined ? { timeoutMs: delivery.timeoutMs } : {}),
        }),
    });
    closing.push(() => emulator.close());
    const books = await startInProcessBooks({ ...options, service: emulator.service, ledger });
    closing.push(books.close);
    return {
      ...emulator,
      ledger,
      env: books.env,
      taskQueue: books.taskQueue,
      ingressUrl: books.ingressUrl,
      get subscription() {
        return books.subscription;
      },
      get worker() {
        return books.worker;
      },
      stopWorker: books.stopWorker,
      startWorker: books.startWorker,
      webhooksToIngress: books.webhooksToIngress,
      close: closing.close,
    };
  } catch (error) {
    await closing.close().catch(() => undefined);
    throw error;
  }
}
