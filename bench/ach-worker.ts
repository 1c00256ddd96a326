import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { PaymentSyncResult, SyncPaymentInput } from '../activities/payment-sync.js';
import { childInput, serveParent } from './child.js';

// Child process: a Temporal worker running booksync's real workflow bundle with a stand-in syncPayment that
// answers "ACH, PENDING" at once, so every payment workflow settles into its 60-day return window. It
// measures Temporal and worker scale, not the service. Counts first syncs (window opened) and later ones
// (the last look when the window ends, just before the workflow completes).

interface Input {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
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
  connection,
  namespace: input.namespace,
  taskQueue: input.taskQueue,
  workflowBundle: { codePath: input.workflowBundlePath },
  activities,
});
const run = worker.run();
serveParent({ counts: () => ({ opened, closing }) }, async () => {
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await run;
  await connection.close();
});
process.send?.({ type: 'ready' });
