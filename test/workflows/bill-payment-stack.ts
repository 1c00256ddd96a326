import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { EmbeddedLedger } from '../../src/accounting/embedded-ledger.js';
import { SandboxClient } from '../../src/emulator/sandbox-client.js';
import { seedDemo } from '../../src/emulator/seed.js';
import { createEmulator, type Emulator } from '../../src/emulator/server.js';
import { DirectHttpDispatcher } from '../../src/emulator/webhooks/direct-http-dispatcher.js';
import { createIngress, type IngressApp } from '../../src/ingress/server.js';
import { ServiceClient } from '../../src/service/client.js';
import { createBooksyncWorker } from '../../src/worker/booksync-worker.js';
import { capturedLogger } from '../ingress/harness.js';
import { freePort } from '../support/free-port.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { waitFor } from '../support/wait-for.js';

// The whole booksync path over real parts: the emulator over HTTP (signed webhooks with short retry
// backoffs), the real ingress, a Temporal server, a worker with the real activities, a ledger file.

export interface Stack {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  emulator: Emulator;
  serviceUrl: string;
  service: ServiceClient;
  sandbox: SandboxClient;
  /** A raw authorized call to the emulator (sandbox routes the typed client lacks). */
  call(method: string, path: string, body?: unknown): Promise<unknown>;
  ledger: EmbeddedLedger;
  ledgerPath: string;
  ingressUrl: string;
  logs: string[];
  worker: Worker;
  /** Every webhook delivery under way has finished (delivered or its attempts spent). */
  deliveriesIdle(): Promise<void>;
  /** The subscription points at the ingress again (a new secret; the ingress restarts with it). */
  webhooksToIngress(): Promise<string>;
  /** The subscription points nowhere: deliveries fail and are dropped after their attempts. */
  webhooksNowhere(): Promise<void>;
  close(): Promise<void>;
}

export async function startStack(
  env: TestWorkflowEnvironment,
  bundle: { codePath: string },
  options: { checkWindows?: { deliveryDays: number; cashingDays: number }; webhooks?: boolean } = {},
): Promise<Stack> {
  const dir = mkdtempSync(path.join(tmpdir(), 'booksync-stack-'));
  const ledgerPath = path.join(dir, 'ledger.db');
  const ledger = EmbeddedLedger.open({ path: ledgerPath });
  const { logger, lines } = capturedLogger();
  const taskQueue = uniqueTaskQueue('stack');

  let dispatcher: DirectHttpDispatcher | null = null;
  // Organizations and clock moves (E17).
  const adminToken = 'stack-admin-token';
  const emulator = createEmulator({
    adminToken,
    dispatcher: (store) => {
      dispatcher = new DirectHttpDispatcher({ store, backoffMs: [50, 100, 200, 400], timeoutMs: 5_000 });
      return dispatcher;
    },
  });
  await emulator.app.listen({ host: '127.0.0.1', port: 0 });
  const { port: emulatorPort } = emulator.app.server.address() as { port: number };
  const serviceUrl = `http://127.0.0.1:${emulatorPort}`;
  const { apiKey } = seedDemo(emulator.store);
  const service = new ServiceClient({ baseUrl: serviceUrl, apiKey, timeoutMs: 10_000 });
  const sandbox = new SandboxClient({ baseUrl: serviceUrl, apiKey, adminToken });

  const ingressPort = await freePort();
  const ingressUrl = `http://127.0.0.1:${ingressPort}`;
  let ingress: IngressApp | null = null;
  const startIngressWith = async (secret: string) => {
    if (ingress) await ingress.close();
    ingress = createIngress({
      temporalClient: env.client,
      taskQueue,
      webhookSecrets: [secret],
      logger: logger.child({ component: 'ingress' }),
    });
    await ingress.listen({ host: '127.0.0.1', port: ingressPort });
  };
  const webhooksToIngress = async () => {
    const created = await service.createWebhook({ url: `${ingressUrl}/webhooks/service` });
    await startIngressWith(created.secret!);
    return created.secret!;
  };
  if (options.webhooks !== false) await webhooksToIngress();

  const worker = await createBooksyncWorker({
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
  const run = worker.run();

  return {
    env,
    taskQueue,
    emulator,
    serviceUrl,
    service,
    sandbox,
    async call(method, route, body) {
      const response = await fetch(`${serviceUrl}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },
    ledger,
    ledgerPath,
    ingressUrl,
    logs: lines,
    worker,
    async deliveriesIdle() {
      await dispatcher?.idle();
    },
    webhooksToIngress,
    async webhooksNowhere() {
      await service.createWebhook({ url: 'http://127.0.0.1:9/nowhere' });
    },
    async close() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run.catch(() => undefined);
      await dispatcher?.idle();
      if (ingress) await (ingress as IngressApp).close();
      await emulator.app.close();
      ledger.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until probe returns a value: the harnesses' one poller, `what` first. */
export function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  return waitFor(what, probe, timeoutMs, 250);
}

/** Balance per account name, accounts at 0 left out. */
export async function balances(ledger: EmbeddedLedger): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const b of await ledger.balances()) if (b.balanceCents !== 0) result[b.account] = b.balanceCents;
  return result;
}
