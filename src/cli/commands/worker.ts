import type { Connection } from '@temporalio/client';
import type { Logger } from '../../logging/logger.js';
import { openAccountingTargets } from '../../runtime/accounting-targets.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { connectClient, connectWorker, temporalTarget } from '../../runtime/temporal-connection.js';
import { ServiceClient } from '../../service/client.js';
import { ensurePeriodCloseSchedule } from '../../temporal/period-close-schedule.js';
import { ensureReconciliationSchedule } from '../../temporal/reconciliation-schedule.js';
import { registerSearchAttributes } from '../../temporal/register-search-attributes.js';
import { createBooksyncWorker } from '../../worker/booksync-worker.js';
import { startWorkerHealthServer } from '../../worker/health-server.js';
import { createWorkerMetrics } from '../../worker/metrics.js';
import type { Command } from '../command.js';
import { requireSetting } from '../require-setting.js';
import { untilSignal } from '../shutdown.js';

export const workerCommand: Command = {
  summary: 'run a Temporal worker of booksync (production: several on one task queue)',
  usesTemporal: true,
  runsWorker: true,
  usage: `booksync worker

Needs TEMPORAL_ADDRESS, SERVICE_BASE_URL and SERVICE_API_KEY. Serves /healthz, /readyz and /metrics on\nMETRICS_HOST:METRICS_PORT.`,
  async run({ settings, logger }) {
    const address = requireSetting(settings, 'TEMPORAL_ADDRESS', 'worker');
    const baseUrl = requireSetting(settings, 'SERVICE_BASE_URL', 'worker');
    const apiKey = requireSetting(settings, 'SERVICE_API_KEY', 'worker');
    const connection = await connectWorker(temporalTarget(settings, address));
    const temporal = await connectClient(temporalTarget(settings, address));
    await ensureSearchAttributes(temporal.connection, settings.TEMPORAL_NAMESPACE, logger);
    const store = await openLedgerStore(settings, logger);
    const ledger = store.ledger;
    const service = new ServiceClient({ baseUrl, apiKey, timeoutMs: settings.SERVICE_TIMEOUT_MS, logger });
    const targets = await openAccountingTargets({
      settings,
      ledger,
      index: store.targetIndex,
      service,
      logger,
    });
    const metrics = createWorkerMetrics();
    const worker = await createBooksyncWorker({
      connection,
      namespace: settings.TEMPORAL_NAMESPACE,
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
      dependencies: {
        service,
        ledger: targets?.ledger ?? ledger,
        ...(targets ? { targets: targets.dependencies } : {}),
        logger,
        externalPaymentAccount: settings.EXTERNAL_PAYMENTS_ACCOUNT,
        checkWindows: {
          deliveryDays: settings.CHECK_DELIVERY_WINDOW_DAYS,
          cashingDays: settings.CHECK_CASHING_WINDOW_DAYS,
        },
      },
      metrics,
      dataDir: settings.BOOKSYNC_DATA_DIR,
      ...(settings.WORKER_MAX_CACHED_WORKFLOWS !== undefined
        ? { maxCachedWorkflows: settings.WORKER_MAX_CACHED_WORKFLOWS }
        : {}),
    });
    const health = await startWorkerHealthServer({
      worker,
      registry: metrics.registry,
      host: settings.METRICS_HOST,
      port: settings.METRICS_PORT,
    });
    // Every worker makes sure the reconciliation Schedule exists (idempotent; the last start-up's settings win).
    const schedule = await ensureReconciliationSchedule(temporal.client, {
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
      interval: settings.RECONCILE_INTERVAL,
    });
    logger.info({ ...schedule, interval: settings.RECONCILE_INTERVAL }, 'reconciliation schedule in place');
    const closeSchedule = await ensurePeriodCloseSchedule(temporal.client, {
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
    });
    logger.info(closeSchedule, 'period close schedule in place (monthly)');
    const run = worker.run();
    // The client stays open while targets exist: new entries wake their push workflows through it.
    await targets?.startPushing(temporal.client, settings.TEMPORAL_TASK_QUEUE);
    if (!targets) await temporal.connection.close();
    logger.info({ taskQueue: settings.TEMPORAL_TASK_QUEUE, address }, 'worker running');
    await Promise.race([untilSignal(), run]);
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await run;
    await health.close();
    await targets?.close();
    if (targets) await temporal.connection.close();
    await store.close();
    await connection.close();
    return 0;
  },
};

/**
 * booksync's search attributes in the namespace before any workflow task upserts them (idempotent: only the
 * missing are added, and several workers starting at once are fine). A Temporal that refuses (an identity
 * without the right, as on Temporal Cloud, where an admin registers them) is logged and the worker runs on:
 * the attributes may be registered already, and if not, the workflow tasks that set them fail visibly until
 * they are.
 */
async function ensureSearchAttributes(connection: Connection, namespace: string, logger: Logger) {
  try {
    const added = await registerSearchAttributes(connection, namespace);
    if (added.length > 0) logger.info({ namespace, added }, 'registered booksync search attributes');
    else logger.debug({ namespace }, 'booksync search attributes already registered');
  } catch (error) {
    logger.warn(
      { namespace, err: error },
      "could not register booksync's search attributes; until they are registered ('booksync temporal setup' with an identity allowed to), workflow tasks that set them fail",
    );
  }
}
