import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { type ActivityDependencies, createActivities } from '../../flows/activities.js';
import { tracedLedger } from '../../ledger/traced-ledger.js';
import type { Logger } from '../../logging/logger.js';
import { activeTracing, type Tracing } from '../../telemetry/tracing.js';
import type { PayloadEncryption } from '../../temporal/data-converter.js';
import type { WorkerMetrics } from './metrics.js';
import { booksyncWorkflowsPath, cachedWorkflowBundle } from './workflow-bundle.js';

export interface BooksyncWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  dependencies: ActivityDependencies;
  /**
   * A prebuilt workflow bundle (tests share one); default: the cached bundle of src/flows/workflows.ts (built at the
   * first start after a change of the sources, see workflow-bundle.ts), webpack at start only as a fallback.
   */
  workflowBundle?: { codePath: string };
  /** BOOKSYNC_DATA_DIR: where the bundle is cached when node_modules/.cache is not writable. */
  dataDir?: string;
  /** Overrides the bundle cache's directories (tests); see cachedWorkflowBundle. */
  bundleCacheDirs?: string[];
  /** Activity outcome and ledger write counters (see src/runtime/worker/metrics.ts). */
  metrics?: WorkerMetrics;
  /** WORKER_MAX_CACHED_WORKFLOWS: bounds memory when many workflows wait on long timers. */
  maxCachedWorkflows?: number;
  /** PAYLOAD_KEYS: payloads encrypted, failures encoded (the bundle is built with the failure converter). */
  encryption?: PayloadEncryption | null;
  /**
   * OTEL_*: workflow, activity and ledger spans (the bundle is built with the OpenTelemetry workflow
   * interceptors). Default: the process's tracing, if startTracing set it up (src/telemetry/tracing.ts).
   */
  tracing?: Tracing | null;
}

export const workflowsPath = booksyncWorkflowsPath;

/** The Temporal worker running booksync's workflows and activities on one task queue. */
export async function createBooksyncWorker(options: BooksyncWorkerOptions): Promise<Worker> {
  const tracing = options.tracing === undefined ? activeTracing() : options.tracing;
  const { dependencies } = options;
  const workflowOptions = await booksyncWorkflowWorkerOptions({
    ...options,
    tracing,
    logger: dependencies.logger,
  });
  // The tracing interceptor first: its span holds the metrics' measure and the activity's own log lines.
  const activityInterceptors = [
    ...(tracing?.activityInterceptors ?? []),
    ...(options.metrics ? [options.metrics.interceptor] : []),
  ];
  return Worker.create({
    ...workflowOptions,
    activities: createActivities(
      tracing ? { ...dependencies, ledger: tracedLedger(dependencies.ledger) } : dependencies,
    ),
    ...(activityInterceptors.length > 0
      ? { interceptors: { ...workflowOptions.interceptors, activity: activityInterceptors } }
      : {}),
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
    // With tracing, the workflow spans leave the sandbox through this sink.
    ...(options.tracing ? { sinks: options.tracing.sinks } : {}),
    // Graceful shutdown lets running activities (a ledger write, a service call) finish first.
    shutdownGraceTime: '20s',
  };
}

async function workflowSource(
  options: Pick<
    BooksyncWorkerOptions,
    'workflowBundle' | 'dataDir' | 'bundleCacheDirs' | 'encryption' | 'tracing'
  > & {
    logger: Logger;
  },
): Promise<
  | { workflowBundle: { codePath: string } }
  | { workflowsPath: string; interceptors?: { workflowModules: string[] } }
> {
  const failureConverterPath = options.encryption?.dataConverter.failureConverterPath;
  const workflowInterceptorModules = options.tracing?.workflowInterceptorModules ?? [];
  if (options.workflowBundle) {
    // A bundle built elsewhere carries the default failure converter: encoded failures need their own.
    if (failureConverterPath) throw new Error('a prebuilt workflow bundle cannot be used with PAYLOAD_KEYS');
    // Nor does it carry the tracing interceptors: its workflows would cut every trace in two.
    if (workflowInterceptorModules.length > 0) {
      throw new Error('a prebuilt workflow bundle cannot be used with tracing (OTEL_EXPORTER_OTLP_ENDPOINT)');
    }
    return { workflowBundle: options.workflowBundle };
  }
  const logger = options.logger;
  try {
    const { codePath } = await cachedWorkflowBundle({
      workflowsPath,
      ...(failureConverterPath ? { failureConverterPath } : {}),
      ...(workflowInterceptorModules.length > 0 ? { workflowInterceptorModules } : {}),
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(options.bundleCacheDirs ? { cacheDirs: options.bundleCacheDirs } : {}),
      logger,
    });
    return { workflowBundle: { codePath } };
  } catch (error) {
    logger.warn({ err: error }, 'no workflow bundle cache; bundling in memory at this start');
    return {
      workflowsPath,
      ...(workflowInterceptorModules.length > 0
        ? { interceptors: { workflowModules: workflowInterceptorModules } }
        : {}),
    };
  }
}

export { NativeConnection };
