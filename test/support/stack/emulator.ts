import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { seedDemo } from '@booksync/emulator/seed';
import { createEmulator, type Emulator } from '@booksync/emulator/server';
import { Store } from '@booksync/emulator/store/store';
import { createDeliveryWorker, deliveryWorkflowsPath } from '@booksync/emulator/webhooks/delivery-worker';
import { DirectHttpDispatcher } from '@booksync/emulator/webhooks/direct-http-dispatcher';
import type { WebhookDispatcher } from '@booksync/emulator/webhooks/dispatcher';
import { RecordingDispatcher } from '@booksync/emulator/webhooks/recording-dispatcher';
import { TemporalDispatcher } from '@booksync/emulator/webhooks/temporal-dispatcher';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundle } from '@temporalio/worker';
import type { Logger } from '../../../src/logging/logger.js';
import { ServiceClient } from '../../../src/service/client.js';
import { uniqueTaskQueue } from '../temporal.js';
import type { Closer } from './closer.js';
import type { TemporalPart } from './temporal.js';

export type DispatchMode =
  /** The emulator POSTs each event itself (DirectHttpDispatcher). */
  | 'direct'
  /** Each delivery is a webhookDelivery workflow on the stack's Temporal (decision “Webhook delivery”), run by a delivery worker. */
  | 'temporal'
  /** Events are only recorded (GET /sandbox/events); the test signals workflows itself. */
  | 'none';

export interface EmulatorChoice {
  /** Organizations and clock moves (E17). */
  adminToken: string;
  dispatch: DispatchMode;
  /** 'direct': waits between attempts (default 200/400/800/1600 ms: retries within seconds). */
  backoffMs?: readonly number[];
  /** 'direct': each attempt's timeout. */
  attemptTimeoutMs?: number;
  /** A SQLite file in the stack's folder; default in memory. */
  onDisk?: boolean;
  serviceTimeoutMs?: number;
  /** How long close waits for deliveries under way; default until they are done. */
  closeWithinMs?: number;
}

/** The emulator over HTTP on loopback with the demo organization seeded, and clients as its key. */
export interface EmulatorPart {
  emulator: Emulator;
  serviceUrl: string;
  apiKey: string;
  adminToken: string;
  service: ServiceClient;
  sandbox: SandboxClient;
  /** Every direct webhook delivery under way has finished (delivered or its attempts spent). */
  deliveriesIdle(): Promise<void>;
}

let deliveryBundle: Promise<WorkflowBundle> | undefined;

/** The emulator's delivery workflows, bundled once per test process. */
function deliveryWorkflowBundle(): Promise<WorkflowBundle> {
  deliveryBundle ??= bundleWorkflowCode({
    workflowsPath: deliveryWorkflowsPath,
    logger: new DefaultLogger('WARN'),
  });
  return deliveryBundle;
}

export async function startEmulatorPart(
  choice: EmulatorChoice,
  context: {
    dir: string;
    closing: Closer;
    temporal: TemporalPart;
    logger: Logger | undefined;
    serviceLogger: Logger | undefined;
  },
): Promise<EmulatorPart> {
  const { closing, temporal } = context;
  const deliveryTaskQueue = uniqueTaskQueue('deliveries');
  const dispatcher = (store: Store): WebhookDispatcher => {
    if (choice.dispatch === 'direct') {
      return new DirectHttpDispatcher({
        store,
        backoffMs: choice.backoffMs ?? [200, 400, 800, 1_600],
        ...(choice.attemptTimeoutMs !== undefined ? { timeoutMs: choice.attemptTimeoutMs } : {}),
      });
    }
    if (choice.dispatch === 'temporal') {
      return new TemporalDispatcher({ client: temporal.client, taskQueue: deliveryTaskQueue });
    }
    return new RecordingDispatcher();
  };
  const store = new Store({ dbPath: choice.onDisk ? path.join(context.dir, 'emulator.db') : ':memory:' });
  closing.push(() => store.close());
  const { apiKey } = seedDemo(store);
  const emulator = createEmulator({
    store,
    adminToken: choice.adminToken,
    dispatcher,
    ...(context.logger ? { logger: context.logger } : {}),
  });
  const deliveriesIdle = async () => {
    if (emulator.dispatcher instanceof DirectHttpDispatcher) await emulator.dispatcher.idle();
  };
  closing.push(async () => {
    const within = choice.closeWithinMs;
    await (within === undefined ? deliveriesIdle() : Promise.race([deliveriesIdle(), sleep(within)]));
    await emulator.app.close();
  });
  const serviceUrl = await emulator.app.listen({ host: '127.0.0.1', port: 0 });
  if (choice.dispatch === 'temporal') {
    const worker = await createDeliveryWorker({
      connection: await temporal.nativeConnection(),
      namespace: temporal.namespace,
      taskQueue: deliveryTaskQueue,
      store,
      workflowBundle: await deliveryWorkflowBundle(),
    });
    const run = worker.run();
    closing.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run;
    });
  }
  const service = new ServiceClient({
    baseUrl: serviceUrl,
    apiKey,
    ...(choice.serviceTimeoutMs !== undefined ? { timeoutMs: choice.serviceTimeoutMs } : {}),
    ...(context.serviceLogger ? { logger: context.serviceLogger } : {}),
  });
  const sandbox = new SandboxClient({ baseUrl: serviceUrl, apiKey, adminToken: choice.adminToken });
  return { emulator, serviceUrl, apiKey, adminToken: choice.adminToken, service, sandbox, deliveriesIdle };
}
