import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { type NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Store } from '../store/store.js';
import { createDeliveryActivities } from './delivery-activities.js';

export const defaultDeliveryTaskQueue = 'service-emulator-webhooks';

/** The emulator's own workflows: this one file, never booksync's bundle (src/flows/workflows.ts). */
export const deliveryWorkflowsPath = fileURLToPath(new URL('./webhook-delivery.ts', import.meta.url));

export interface DeliveryWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** The emulator's store (shared with createEmulator): secrets come from it, attempts are logged into it. */
  store: Store;
  /** A prebuilt bundle of deliveryWorkflowsPath; without it the worker bundles at creation (seconds). */
  workflowBundle?: WorkflowBundleOption;
  /** Per HTTP attempt; decision “Webhook delivery” says 10 s. */
  timeoutMs?: number;
  /**
   * How payloads are encoded: the same as the client that starts the deliveries (TemporalDispatcher). Its
   * failure converter, if any, must be in `workflowBundle` (built with it); without a bundle the worker
   * bundles it in.
   */
  dataConverter?: DataConverter;
}

/** Runs webhookDelivery workflows and their deliverWebhookAttempt activity; the caller runs and stops it. */
export function createDeliveryWorker(options: DeliveryWorkerOptions): Promise<Worker> {
  const workflows = options.workflowBundle
    ? { workflowBundle: options.workflowBundle }
    : { workflowsPath: deliveryWorkflowsPath };
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? defaultDeliveryTaskQueue,
    ...workflows,
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    activities: createDeliveryActivities({
      store: options.store,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    }),
  });
}
