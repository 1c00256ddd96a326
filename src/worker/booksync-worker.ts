import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { type ActivityDependencies, createActivities } from '../../activities/index.js';
import type { WorkerMetrics } from './metrics.js';

export interface BooksyncWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  dependencies: ActivityDependencies;
  /** A prebuilt workflow bundle (tests share one); default: bundle workflows/ at start. */
  workflowBundle?: { codePath: string };
  /** Activity outcome and ledger write counters (see src/worker/metrics.ts). */
  metrics?: WorkerMetrics;
  /** WORKER_MAX_CACHED_WORKFLOWS: bounds memory when many workflows wait on long timers. */
  maxCachedWorkflows?: number;
}

export const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** The Temporal worker running booksync's workflows and activities on one task queue. */
export async function createBooksyncWorker(options: BooksyncWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities: createActivities(options.dependencies),
    ...(options.metrics ? { interceptors: { activity: [options.metrics.interceptor] } } : {}),
    ...(options.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
    // Graceful shutdown lets running activities (a ledger write, a service call) finish first.
    shutdownGraceTime: '20s',
  });
}

export { NativeConnection };
