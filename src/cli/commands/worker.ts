import type { Connection } from '@temporalio/client';
import type { Logger } from '../../logging/logger.js';
import { registerSearchAttributes } from '../../runtime/temporal/register-search-attributes.js';
import { connectClient, connectWorker, temporalTarget } from '../../runtime/temporal/temporal-connection.js';
import { startBooksyncWorker } from '../../runtime/worker/booksync-worker-process.js';
import { ServiceClient } from '../../service/client.js';
import { warnWhenPayloadsUnencrypted } from '../../temporal/data-converter.js';
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
    const target = temporalTarget(settings, address);
    warnWhenPayloadsUnencrypted(settings, target.encryption, logger);
    const connection = await connectWorker(target);
    const temporal = await connectClient(target);
    await ensureSearchAttributes(temporal.connection, settings.TEMPORAL_NAMESPACE, logger);
    const service = new ServiceClient({ baseUrl, apiKey, timeoutMs: settings.SERVICE_TIMEOUT_MS, logger });
    const running = await startBooksyncWorker({
      settings,
      logger,
      connection,
      client: temporal.client,
      service,
    });
    logger.info({ address }, 'connected to Temporal');
    await Promise.race([untilSignal(), running.run]);
    await running.stop();
    await temporal.connection.close();
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
