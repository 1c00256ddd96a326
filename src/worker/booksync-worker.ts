import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { type ActivityDependencies, createActivities } from '../../activities/index.js';
import type { Logger } from '../logging/logger.js';
import type { PayloadEncryption } from '../temporal/data-converter.js';
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
  /** PAYLOAD_KEYS: payloads encrypted, failures encoded (the bundle is built with the failure converter). */
  encryption?: PayloadEncryption | null;
}

export const workflowsPath = booksyncWorkflowsPath;

/** The Temporal worker running booksync's workflows and activities on one task queue. */
export async function createBooksyncWorker(options: BooksyncWorkerOptions): Promise<Worker> {
  return Worker.create({
    ...(await booksyncWorkflowWorkerOptions({ ...options, logger: options.dependencies.logger })),
    activities: createActivities(options.dependencies),
    ...(options.metrics ? { interceptors: { activity: [options.metrics.interceptor] } } : {}),
  });
}

/**
 * Everything of the worker's options but its activities and interceptors: connection, queue, the cached
 * workflow bundle, the workflow cache bound and shutdown. Shared with the ACH benchmark's worker
 * (bench/ach-worker.ts), which brings a stand-in syncPayment, so that it measures the worker as shipped.
 */
export async function booksyncWorkflowWorkerOptions(
  options: Omit<BooksyncWorkerOptions, 'dependencies' | 'metrics'> & { logger: Logger },
): Promise<WorkerOptions> {
  const workflows = await workflowSource(options);
  return {
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...workflows,
    ...(options.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
    ...(options.encryption ? { dataConverter: options.encryption.dataConverter } : {}),
    // Graceful shutdown lets running activities (a ledger write, a service call) finish first.
    shutdownGraceTime: '20s',
  };
}

async function workflowSource(
  options: Pick<BooksyncWorkerOptions, 'workflowBundle' | 'dataDir' | 'bundleCacheDirs' | 'encryption'> & {
    logger: Logger;
  },
): Promise<{ workflowBundle: { codePath: string } } | { workflowsPath: string }> {
  const failureConverterPath = options.encryption?.dataConverter.failureConverterPath;
  if (options.workflowBundle) {
    // A bundle built elsewhere carries the default failure converter: encoded failures need their own.
    if (failureConverterPath) throw new Error('a prebuilt workflow bundle cannot be used with PAYLOAD_KEYS');
    return { workflowBundle: options.workflowBundle };
  }
  const logger = options.logger;
  try {
    const { codePath } = await cachedWorkflowBundle({
      workflowsPath,
      ...(failureConverterPath ? { failureConverterPath } : {}),
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
