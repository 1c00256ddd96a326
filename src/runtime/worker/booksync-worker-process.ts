import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Settings } from '../../config/settings.js';
import type { TargetIndexStore } from '../../flows/push/target-index.js';
import type { ReportStore } from '../../ledger/report-store.js';
import type { Logger } from '../../logging/logger.js';
import type { ServiceClient } from '../../service/client.js';
import { payloadEncryptionFrom } from '../../temporal/data-converter.js';
import { openLedgerStore, type StoredLedger } from '../ledger-store.js';
import { openAccountingTargets } from '../targets/accounting-targets.js';
import { ensurePeriodCloseSchedule } from '../temporal/period-close-schedule.js';
import { ensureReconciliationSchedule } from '../temporal/reconciliation-schedule.js';
import { createBooksyncWorker } from './booksync-worker.js';
import { startWorkerHealthServer } from './health-server.js';
import { createWorkerMetrics } from './metrics.js';

// booksync's worker side, assembled once from settings for `booksync worker` and the embedded stack
// (`booksync start`) alike: the books (ledger store and its target index), the accounting targets, the
// Temporal worker with its metrics and health listener, and the Schedules every worker keeps in place.

export interface RunningBooksyncWorker {
  worker: Worker;
  /** Resolves when the worker stops (shutdown, or a fatal error: then it rejects). */
  run: Promise<void>;
  ledger: StoredLedger;
  /** The accounting targets' index, in the ledger's store (the console reads it). */
  targetIndex: TargetIndexStore;
  /** Reports kept whole beside the books (certificates, payout period reports; the console reads them). */
  reports: ReportStore;
  /** Where the books are: the SQLite file, or the PostgreSQL url without its password. */
  ledgerLocation: string;
  /** /healthz, /readyz and /metrics. */
  healthUrl: string;
  /** Drains the worker (its shutdown grace), then closes the health listener, targets and the books. */
  stop(): Promise<void>;
}

export async function startBooksyncWorker(options: {
  settings: Settings;
  logger: Logger;
  /** The worker's own connection to Temporal. */
  connection: NativeConnection;
  /** A client of the same Temporal, open while the worker runs: Schedules, and the targets' push wake-ups. */
  client: Client;
  service: ServiceClient;
}): Promise<RunningBooksyncWorker> {
  const { settings, logger, client } = options;
  const closing: (() => Promise<void>)[] = [];
  // Every step runs even when one fails (the books still close after a worker that stopped badly); the
  // first failure is then thrown, not swallowed.
  const close = async () => {
    let failure: unknown;
    for (const step of closing.reverse()) {
      try {
        await step();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  };
  try {
    const store = await openLedgerStore(settings, logger);
    closing.push(() => store.close());
    const targets = await openAccountingTargets({
      settings,
      ledger: store.ledger,
      index: store.targetIndex,
      service: options.service,
      logger,
    });
    if (targets) closing.push(() => targets.close());
    const service = targets?.service ?? options.service;

    const metrics = createWorkerMetrics();
    const worker = await createBooksyncWorker({
      connection: options.connection,
      namespace: settings.TEMPORAL_NAMESPACE,
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
      dependencies: {
        service,
        ledger: targets?.ledger ?? store.ledger,
        reports: store.reports,
        ...(targets ? { targets: targets.dependencies, targetFigures: targets.figures } : {}),
        logger: logger.child({ component: 'activities' }),
        externalPaymentAccount: settings.EXTERNAL_PAYMENTS_ACCOUNT,
        payoutBankAccounts: settings.PAYOUT_BANK_ACCOUNTS ?? [],
        timeZone: settings.BOOKS_TIME_ZONE,
        checkWindows: {
          deliveryDays: settings.CHECK_DELIVERY_WINDOW_DAYS,
          cashingDays: settings.CHECK_CASHING_WINDOW_DAYS,
        },
      },
      metrics,
      encryption: payloadEncryptionFrom(settings),
      dataDir: settings.BOOKSYNC_DATA_DIR,
      maxCachedWorkflows: settings.WORKER_MAX_CACHED_WORKFLOWS,
    });
    // From here the worker holds its connection, also when start-up fails before it runs (a Schedule call that
    // times out): a worker made but never run is run and shut down at once, as the SDK's own replay does, so
    // the connection closes and the process can end.
    let run: Promise<void> | null = null;
    closing.push(async () => {
      run ??= worker.run();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run;
    });
    const health = await startWorkerHealthServer({
      worker,
      registry: metrics.registry,
      host: settings.METRICS_HOST,
      port: settings.METRICS_PORT,
    });
    closing.push(() => health.close());

    // Every worker makes sure the Schedules exist (idempotent; the last start-up's settings win).
    const schedule = await ensureReconciliationSchedule(client, {
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
      interval: settings.RECONCILE_INTERVAL,
    });
    logger.info({ ...schedule, interval: settings.RECONCILE_INTERVAL }, 'reconciliation schedule in place');
    const closeSchedule = await ensurePeriodCloseSchedule(client, {
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
      timeZone: settings.BOOKS_TIME_ZONE,
      closeBooks: settings.PERIOD_CLOSE_CLOSES_BOOKS,
    });
    logger.info(closeSchedule, 'period close schedule in place (monthly)');

    const started = worker.run();
    run = started;
    // New entries wake the targets' push workflows through the client.
    await targets?.startPushing(client, settings.TEMPORAL_TASK_QUEUE);
    logger.info({ taskQueue: settings.TEMPORAL_TASK_QUEUE, ledger: store.location }, 'worker running');
    return {
      worker,
      run: started,
      ledger: store.ledger,
      targetIndex: store.targetIndex,
      reports: store.reports,
      ledgerLocation: store.location,
      healthUrl: health.address,
      stop: close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
