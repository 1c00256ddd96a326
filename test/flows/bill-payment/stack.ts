import type { SandboxClient } from '@booksync/emulator/sandbox-client';
import type { Emulator } from '@booksync/emulator/server';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { EmbeddedLedger } from '../../../src/ledger/embedded-ledger.js';
import type { ServiceClient } from '../../../src/service/client.js';
import { capturedLogger } from '../../ingress/harness.js';
import { startStack as startComposedStack } from '../../support/stack/stack.js';

// The whole booksync path over real parts: the emulator over HTTP (signed webhooks with short retry
// backoffs), the real ingress, a Temporal server, a worker with the real activities, a ledger file. The
// composed stack (test/support/stack/stack.ts) with captured logs and the sandbox client.

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

/** Organizations and clock moves (E17). */
const adminToken = 'stack-admin-token';

export async function startStack(
  env: TestWorkflowEnvironment,
  bundle: { codePath: string },
  options: { checkWindows?: { deliveryDays: number; cashingDays: number }; webhooks?: boolean } = {},
): Promise<Stack> {
  const { logger, lines } = capturedLogger();
  const stack = await startComposedStack({
    temporal: env,
    emulator: {
      adminToken,
      dispatch: 'direct',
      backoffMs: [50, 100, 200, 400],
      attemptTimeoutMs: 5_000,
      serviceTimeoutMs: 10_000,
    },
    ledger: 'sqlite',
    worker: {
      run: 'in-process',
      bundle,
      ...(options.checkWindows ? { checkWindows: options.checkWindows } : {}),
    },
    ingress: { webhooks: options.webhooks === false ? 'unsubscribed' : 'subscribe' },
    logger,
  });
  const emulator = stack.emulator!;
  const ingress = stack.ingress!;
  const worker = stack.worker!.worker!;
  const { apiKey, serviceUrl } = emulator;
  return {
    env,
    taskQueue: stack.taskQueue,
    emulator: emulator.emulator,
    serviceUrl,
    service: emulator.service,
    sandbox: emulator.sandbox,
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
    ledger: stack.ledger!.open(),
    ingressUrl: ingress.url,
    logs: lines,
    worker,
    deliveriesIdle: emulator.deliveriesIdle,
    webhooksToIngress: ingress.webhooksToIngress,
    async webhooksNowhere() {
      await emulator.service.createWebhook({ url: 'http://127.0.0.1:9/nowhere' });
    },
    close: stack.close,
  };
}

/** Balance per account name, accounts at 0 left out. */
export async function balances(ledger: EmbeddedLedger): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const b of await ledger.balances()) if (b.balanceCents !== 0) result[b.account] = b.balanceCents;
  return result;
}
