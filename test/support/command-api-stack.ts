import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createIngress, type IngressApp } from '../../src/ingress/server.js';
import { secretA } from '../ingress/harness.js';
import { type SyncWorld, startSyncWorld } from './sync-world.js';
import { startDevServer, uniqueTaskQueue, workflowBundle } from './temporal.js';

/** A dev server, a worker with the real activities, the emulator over HTTP and a listening ingress. */
export interface CommandApiStack {
  env: TestWorkflowEnvironment;
  world: SyncWorld;
  ingress: IngressApp;
  baseUrl: string;
  /** No worker polls until startWorker: Temporal holds what comes, Updates wait to be accepted. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startCommandApiStack(options: {
  taskQueuePrefix: string;
  apiKey: string;
  returnedCheckFeeCents?: number;
  /** How long a command waits for its outcome before its 202. */
  answerWithinMs?: number;
}): Promise<CommandApiStack> {
  const [env, bundle, world] = await Promise.all([startDevServer(), workflowBundle(), startSyncWorld()]);
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let ingress: IngressApp | undefined;
  const close = async () => {
    await ingress?.close();
    worker?.shutdown();
    await running;
    await world.close();
    await env.teardown();
  };
  const taskQueue = uniqueTaskQueue(options.taskQueuePrefix);
  const startWorker = async () => {
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: world.activities,
    });
    running = worker.run();
  };
  const stopWorker = async () => {
    worker?.shutdown();
    await running;
    worker = undefined;
    running = undefined;
  };
  try {
    await startWorker();
    ingress = createIngress({
      temporalClient: env.client,
      taskQueue,
      webhookSecrets: [secretA],
      commandApiKey: options.apiKey,
      ...(options.answerWithinMs ? { commandAnswerWithinMs: options.answerWithinMs } : {}),
      ...(options.returnedCheckFeeCents !== undefined
        ? { returnedCheckFeeCents: options.returnedCheckFeeCents }
        : {}),
    });
    await ingress.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(ingress.server.address() as AddressInfo).port}`;
    return { env, world, ingress, baseUrl, stopWorker, startWorker, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}
