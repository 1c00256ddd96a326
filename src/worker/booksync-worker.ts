import { NativeConnection, Worker } from '@temporalio/worker';
import { type ActivityDependencies, createActivities } from '../../activities/index.js';
import type { WorkerMetrics } from './metrics.js';
import { booksyncWorkflowsPath, cachedWorkflowBundle } from './workflow-bundle.js';

export interface BooksyncWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  dependencies: ActivityDependencies;
  /**
   * A prebuilt workflow bundle (tests share one); default: the cached bundle of workflows/ (built at the
   * first start after a change of the sources, see workflow-bundle.ts), webpack at start only as a fallback.
   */
  workflowBundle?: { codePath: string };
  /** BOOKSYNC_DATA_DIR: where the bundle is cached when node_modules/.cache is not writable. */
  dataDir?: string;
  /** Overrides the bundle cache's directories (tests); see cachedWorkflowBundle. */
  bundleCacheDirs?: string[];
  /** Activity outcome and ledger write counters (see src/worker/metrics.ts). */
  metrics?: WorkerMetrics;
  /** WORKER_MAX_CACHED_WORKFLOWS: bounds memory when many workflows wait on long timers. */
  maxCachedWorkflows?: number;
}

export const workflowsPath = booksyncWorkflowsPath;

/** The Temporal worker running booksync's workflows and activities on one task queue. */
export async function createBooksyncWorker(options: BooksyncWorkerOptions): Promise<Worker> {
  const workflows = await workflowSource(options);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...workflows,
    activities: createActivities(options.dependencies),
    ...(options.metrics ? { interceptors: { activity: [options.metrics.interceptor] } } : {}),
    ...(options.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
    // Graceful shutdown lets running activities (a ledger write, a service call) finish first.
    shutdownGraceTime: '20s',
  });
}

async function workflowSource(
  options: BooksyncWorkerOptions,
): Promise<{ workflowBundle: { codePath: string } } | { workflowsPath: string }> {
  if (options.workflowBundle) return { workflowBundle: options.workflowBundle };
  const logger = options.dependencies.logger;
  try {
    const { codePath } = await cachedWorkflowBundle({
      workflowsPath,
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(options.bundleCacheDirs ? { cacheDirs: options.bundleCacheDirs } : {}),
      logger,
    });
    return { workflowBundle: { codePath } };
  } catch (error) {
    logger.warn({ err: error }, 'no workflow bundle cache; bundling in memory at this start');
    return { workflowsPath };
  }
}

export { NativeConnection };
