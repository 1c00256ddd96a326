import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { PaymentSyncResult, SyncPaymentInput } from '../src/flows/payment/activities-contract.js';
import { createLogger } from '../src/logging/logger.js';
import { booksyncWorkflowWorkerOptions } from '../src/runtime/worker/booksync-worker.js';
import { childInput, serveParent } from './child.js';
import { ownMemoryMiB } from './proc-stats.js';

// Child process: a Temporal worker built as `booksync worker` builds it (booksyncWorkflowWorkerOptions: the
// cached workflow bundle, the workflow cache bound, shutdown) with a stand-in syncPayment that answers
// "ACH, PENDING" at once, so every payment workflow settles into its 60-day return window. It measures
// Temporal and worker scale, not the service. Counts first syncs (window opened) and later ones (the last
// look when the window ends, just before the workflow completes), and reports the SDK's cached workflows.

interface Input {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** WORKER_MAX_CACHED_WORKFLOWS as the worker gets it; undefined: the SDK's default (by heap size). */
  maxCachedWorkflows?: number;
  /** The cached workflow bundle the parent found or built (cachedWorkflowBundle), as a warm start reads it. */
  workflowBundlePath: string;
}

Runtime.install({ logger: new DefaultLogger('WARN') });
const input = childInput<Input>();
const synced = new Set<string>();
let opened = 0;
let closing = 0;

const activities = {
  async syncPayment(request: SyncPaymentInput): Promise<PaymentSyncResult> {
    if (synced.has(request.paymentId)) closing++;
    else {
      synced.add(request.paymentId);
      opened++;
    }
    return {
      paymentId: request.paymentId,
      status: 'PENDING',
      methodType: 'ACH',
      paymentLinkId: null,
      customerId: null,
      amountInCents: 1_000,
      madeAt: new Date().toISOString(),
      posted: [],
      reversed: [],
    };
  },
};

const connection = await NativeConnection.connect({ address: input.temporalAddress });
const worker = await Worker.create({
  ...(await booksyncWorkflowWorkerOptions({
    connection,
    namespace: input.namespace,
    taskQueue: input.taskQueue,
    logger: createLogger({ level: 'warn', format: 'json' }),
    workflowBundle: { codePath: input.workflowBundlePath },
    ...(input.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: input.maxCachedWorkflows } : {}),
  })),
  activities,
});
const run = worker.run();
serveParent(
  {
    counts: () => ({ opened, closing, cached: worker.getStatus().numCachedWorkflows }),
    memory: ownMemoryMiB,
  },
  async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await run;
    await connection.close();
  },
);
process.send?.({ type: 'ready' });
