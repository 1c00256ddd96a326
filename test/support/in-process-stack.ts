import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { ActivityDependencies } from '../../activities/index.js';
import { EmbeddedLedger } from '../../src/accounting/embedded-ledger.js';
import { seedDemo } from '../../src/emulator/seed.js';
import { createEmulator, type Emulator } from '../../src/emulator/server.js';
import { DirectHttpDispatcher } from '../../src/emulator/webhooks/direct-http-dispatcher.js';
import { type RunningIngress, startIngress } from '../../src/ingress/main.js';
import type { IngressOptions } from '../../src/ingress/server.js';
import { type Logger, silentLogger } from '../../src/logging/logger.js';
import { ServiceClient } from '../../src/service/client.js';
import { createBooksyncWorker } from '../../src/worker/booksync-worker.js';
import { freePort } from './free-port.js';
import { uniqueTaskQueue, workflowBundle } from './temporal.js';

// booksync in-process on loopback, its worker and ingress built as the composition root builds them
// (createBooksyncWorker with the real activities, startIngress on an existing Temporal client), beside an
// emulator over HTTP. The stack harnesses of the workflow and command API tests are thin uses of this one:
// the emulator start, seed and subscription, the ingress and worker starts and the close order are here only.

/** The emulator side: started here (the demo organization seeded, direct webhook dispatch), or the caller's. */
export type InProcessService =
  | {
      kind: 'demo';
      adminToken: string;
      /** Waits between direct delivery attempts. */
      backoffMs: readonly number[];
      timeoutMs?: number;
      serviceTimeoutMs?: number;
    }
  | {
      kind: 'given';
      /** Closed by the caller, after the stack. */
      emulator: Emulator;
      /** The key the service client calls with. */
      apiKey: string;
      ledger: EmbeddedLedger;
      service: ServiceClient;
    };

export interface InProcessStackOptions {
  env: TestWorkflowEnvironment;
  /** Default: the shared bundle of booksync's workflows. */
  bundle?: { codePath: string };
  taskQueuePrefix: string;
  service: InProcessService;
  /** The ingress logs as component 'ingress', the activities as 'activities'. Default silent. */
  logger?: Logger;
  checkWindows?: ActivityDependencies['checkWindows'];
  /**
   * 'subscribe': the emulator's subscription points at the ingress, which verifies its secret (the default);
   * 'unsubscribed': no subscription and no ingress until webhooksToIngress; { secrets }: no subscription, the
   * ingress verifies these.
   */
  webhooks?: 'subscribe' | 'unsubscribed' | { secrets: string[] };
  /** Command API settings of the ingress. */
  ingress?: Pick<IngressOptions, 'commandApiKey' | 'commandAnswerWithinMs' | 'returnedCheckFeeCents'>;
}

export interface InProcessStack {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  emulator: Emulator;
  serviceUrl: string;
  apiKey: string;
  service: ServiceClient;
  ledger: EmbeddedLedger;
  ingressUrl: string;
  /** The running worker (undefined between stopWorker and startWorker). */
  readonly worker: Worker | undefined;
  /** No worker polls until startWorker: Temporal holds what comes. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  /** A new subscription pointing at the ingress; the ingress restarts on its port verifying its secret. */
  webhooksToIngress(): Promise<string>;
  /** Every webhook delivery under way has finished (delivered or its attempts spent). */
  deliveriesIdle(): Promise<void>;
  /** Ingress, worker, deliveries, then what the stack opened: emulator, ledger, temp folder. */
  close(): Promise<void>;
}

export async function startInProcessStack(options: InProcessStackOptions): Promise<InProcessStack> {
  const { env } = options;
  const logger = options.logger ?? silentLogger;
  const taskQueue = uniqueTaskQueue(options.taskQueuePrefix);
  const closing: (() => Promise<void>)[] = [];
  // Every step runs even when one fails; the first failure is then thrown.
  const closeAll = async () => {
    let failure: unknown;
    for (const step of closing.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  };

  try {
    let emulator: Emulator;
    let ledger: EmbeddedLedger;
    let service: ServiceClient;
    let serviceUrl: string;
    let apiKey: string;
    if (options.service.kind === 'demo') {
      const demo = options.service;
      const dir = mkdtempSync(path.join(tmpdir(), 'booksync-stack-'));
      closing.push(async () => rmSync(dir, { recursive: true, force: true }));
      ledger = EmbeddedLedger.open({ path: path.join(dir, 'ledger.db') });
      const opened = ledger;
      closing.push(async () => opened.close());
      emulator = createEmulator({
        adminToken: demo.adminToken,
        dispatcher: (store) =>
          new DirectHttpDispatcher({
            store,
            backoffMs: demo.backoffMs,
            ...(demo.timeoutMs !== undefined ? { timeoutMs: demo.timeoutMs } : {}),
          }),
      });
      const started = emulator;
      closing.push(async () => {
        await started.app.close();
      });
      serviceUrl = await emulator.app.listen({ host: '127.0.0.1', port: 0 });
      ({ apiKey } = seedDemo(emulator.store));
      service = new ServiceClient({
        baseUrl: serviceUrl,
        apiKey,
        ...(demo.serviceTimeoutMs !== undefined ? { timeoutMs: demo.serviceTimeoutMs } : {}),
      });
    } else {
      ({ emulator, apiKey, ledger, service } = options.service);
      const { port } = emulator.app.server.address() as { port: number };
      serviceUrl = `http://127.0.0.1:${port}`;
    }
    const deliveriesIdle = async () => {
      const { dispatcher } = emulator;
      if (dispatcher instanceof DirectHttpDispatcher) await dispatcher.idle();
    };
    closing.push(deliveriesIdle);

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
          ...(options.checkWindows ? { checkWindows: options.checkWindows } : {}),
        },
      });
      worker = { worker: created, run: created.run() };
    };
    closing.push(stopWorker);

    // The ingress on one port for the stack's life; a new subscription secret restarts it there.
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
    const webhooksToIngress = async () => {
      const created = await service.createWebhook({ url: `${ingressUrl}/webhooks/service` });
      if (!created.secret) throw new Error('the emulator created an unsigned subscription');
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
      emulator,
      serviceUrl,
      apiKey,
      service,
      ledger,
      ingressUrl,
      get worker() {
        return worker?.worker;
      },
      stopWorker,
      startWorker,
      webhooksToIngress,
      deliveriesIdle,
      close: closeAll,
    };
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
}
