import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { secretA } from '../ingress/harness.js';
import { type Stack, startStack } from './stack/stack.js';
import type { InProcessWorkerPart } from './stack/worker-in-process.js';
import { type SyncWorld, startSyncWorld } from './sync-world.js';
import { workflowBundle } from './temporal.js';

/** A dev server, a worker with the real activities, the emulator over HTTP and a listening ingress. */
export interface CommandApiStack {
  env: TestWorkflowEnvironment;
  world: SyncWorld;
  baseUrl: string;
  /** No worker polls until startWorker: Temporal holds what comes, Updates wait to be accepted. */
  stopWorker: InProcessWorkerPart['stop'];
  startWorker: InProcessWorkerPart['start'];
  /** The stack, then the world's emulator and ledger. */
  close: Stack['close'];
}

/** The composed stack (stack/stack.ts) with its own dev server, over a sync world's emulator and ledger. */
export async function startCommandApiStack(options: {
  taskQueuePrefix: string;
  apiKey: string;
  returnedCheckFeeCents?: number;
  /** How long a command waits for its outcome before its 202. */
  answerWithinMs?: number;
}): Promise<CommandApiStack> {
  const [bundle, world] = await Promise.all([workflowBundle(), startSyncWorld()]);
  try {
    const stack = await startStack({
      temporal: 'dev-server',
      emulator: world.service,
      ledger: world.ledger,
      worker: { run: 'in-process', bundle },
      ingress: {
        webhooks: { secrets: [secretA] },
        commandApiKey: options.apiKey,
        ...(options.answerWithinMs ? { commandAnswerWithinMs: options.answerWithinMs } : {}),
        ...(options.returnedCheckFeeCents !== undefined
          ? { returnedCheckFeeCents: options.returnedCheckFeeCents }
          : {}),
      },
      taskQueuePrefix: options.taskQueuePrefix,
    });
    const worker = stack.worker!;
    return {
      env: stack.temporal.env!,
      world,
      baseUrl: stack.ingress!.url,
      stopWorker: worker.stop,
      startWorker: worker.start,
      async close() {
        await stack.close();
        await world.close();
      },
    };
  } catch (err) {
    await world.close().catch(() => undefined);
    throw err;
  }
}
