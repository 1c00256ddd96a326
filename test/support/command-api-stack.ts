import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { secretA } from '../ingress/harness.js';
import { startInProcessBooks } from './in-process-stack.js';
import { type SyncWorld, startSyncWorld } from './sync-world.js';
import { startDevServer, workflowBundle } from './temporal.js';

/** A dev server, a worker with the real activities, the emulator over HTTP and a listening ingress. */
export interface CommandApiStack {
  env: TestWorkflowEnvironment;
  world: SyncWorld;
  baseUrl: string;
  /** No worker polls until startWorker: Temporal holds what comes, Updates wait to be accepted. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

/** The in-process books side (test/support/in-process-stack.ts) over a sync world's emulator and ledger. */
export async function startCommandApiStack(options: {
  taskQueuePrefix: string;
  apiKey: string;
  returnedCheckFeeCents?: number;
  /** How long a command waits for its outcome before its 202. */
  answerWithinMs?: number;
}): Promise<CommandApiStack> {
  const [env, bundle, world] = await Promise.all([startDevServer(), workflowBundle(), startSyncWorld()]);
  try {
    const stack = await startInProcessBooks({
      env,
      bundle,
      taskQueuePrefix: options.taskQueuePrefix,
      service: world.service,
      ledger: world.ledger,
      webhooks: { secrets: [secretA] },
      ingress: {
        commandApiKey: options.apiKey,
        ...(options.answerWithinMs ? { commandAnswerWithinMs: options.answerWithinMs } : {}),
        ...(options.returnedCheckFeeCents !== undefined
          ? { returnedCheckFeeCents: options.returnedCheckFeeCents }
          : {}),
      },
    });
    return {
      env,
      world,
      baseUrl: stack.ingressUrl,
      stopWorker: stack.stopWorker,
      startWorker: stack.startWorker,
      async close() {
        await stack.close();
        await world.close();
        await env.teardown();
      },
    };
  } catch (err) {
    await world.close().catch(() => undefined);
    await env.teardown().catch(() => undefined);
    throw err;
  }
}
