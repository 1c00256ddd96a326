import type { Worker } from '@temporalio/worker';
import type { ActivityDependencies } from '../../../src/flows/activities.js';
import type { EmbeddedLedger } from '../../../src/ledger/embedded-ledger.js';
import { SqliteReportStore } from '../../../src/ledger/report-store.js';
import { type Logger, silentLogger } from '../../../src/logging/logger.js';
import { createBooksyncWorker } from '../../../src/runtime/worker/booksync-worker.js';
import type { ServiceClient } from '../../../src/service/client.js';
import { workflowBundle } from '../temporal.js';
import type { Closer } from './closer.js';
import type { TemporalPart } from './temporal.js';

export interface InProcessWorkerChoice {
  /** Default: the shared bundle of booksync's workflows. */
  bundle?: { codePath: string };
  checkWindows?: ActivityDependencies['checkWindows'];
  /** BOOKS_TIME_ZONE of the activities (default UTC). */
  timeZone?: string;
  /** Accounting targets the push activities write to (their index, references). */
  targets?: ActivityDependencies['targets'];
}

export interface InProcessWorkerPart {
  /** The running worker (undefined between stop and start). */
  readonly worker: Worker | undefined;
  /** No worker polls until start: Temporal holds what comes. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** booksync's worker in the test process, as startBooksyncWorker builds it (no metrics, no Schedules). */
export async function startInProcessWorker(
  choice: InProcessWorkerChoice,
  context: {
    closing: Closer;
    temporal: TemporalPart;
    taskQueue: string;
    service: ServiceClient;
    ledger: EmbeddedLedger;
    logger: Logger | undefined;
  },
): Promise<InProcessWorkerPart> {
  const { temporal, taskQueue } = context;
  const bundle = choice.bundle ?? (await workflowBundle());
  let running: { worker: Worker; run: Promise<void> } | undefined;
  const stop = async () => {
    const stopping = running;
    running = undefined;
    if (!stopping) return;
    if (stopping.worker.getState() === 'RUNNING') stopping.worker.shutdown();
    await stopping.run;
  };
  const start = async () => {
    const worker = await createBooksyncWorker({
      connection: await temporal.nativeConnection(),
      namespace: temporal.namespace,
      taskQueue,
      workflowBundle: bundle,
      dependencies: {
        service: context.service,
        ledger: context.ledger,
        reports: new SqliteReportStore(context.ledger.database),
        logger: context.logger ?? silentLogger,
        timeZone: choice.timeZone ?? 'UTC',
        ...(choice.checkWindows ? { checkWindows: choice.checkWindows } : {}),
        ...(choice.targets ? { targets: choice.targets } : {}),
      },
    });
    running = { worker, run: worker.run() };
  };
  context.closing.push(stop);
  await start();
  return {
    get worker() {
      return running?.worker;
    },
    stop,
    start,
  };
}
