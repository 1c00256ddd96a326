import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  createDeliveryWorker,
  defaultDeliveryTaskQueue,
  deliveryWorkflowsPath,
} from '@booksync/emulator/webhooks/delivery-worker';
import { TemporalDispatcher } from '@booksync/emulator/webhooks/temporal-dispatcher';
import { ensurePrivateDir } from '@booksync/private-files';
import { Client, type Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Settings } from '../config/settings.js';
import type { TargetIndexStore } from '../flows/push/target-index.js';
import { type RunningIngress, startIngress } from '../ingress/main.js';
import type { ReportStore } from '../ledger/report-store.js';
import type { Logger } from '../logging/logger.js';
import { ServiceClient } from '../service/client.js';
import {
  type PayloadEncryption,
  payloadEncryptionFrom,
  warnWhenPayloadsUnencrypted,
} from '../temporal/data-converter.js';
import { codecServerOptions, embeddedUiCanDecode, operationsBaseUrl } from './codec-server-options.js';
import { ensureEmbeddedCommandApiKey, ensureEmbeddedConsolePassword } from './command-api-key.js';
import { consoleOptions } from './console-options.js';
import { type RunningEmulator, startEmbeddedEmulator } from './embedded-emulator.js';
import { ingressSettings } from './ingress-settings.js';
import type { StoredLedger } from './ledger-store.js';
import { devServerUiUrl, type RunningDevServer, startDevServer } from './temporal/dev-server.js';
import { registerSearchAttributes } from './temporal/register-search-attributes.js';
import { connectClient, connectWorker, temporalTarget } from './temporal/temporal-connection.js';
import { startBooksyncWorker } from './worker/booksync-worker-process.js';
import { cachedWorkflowBundle } from './worker/workflow-bundle.js';

export interface RunningBooksync {
  temporalAddress: string;
  temporalUiUrl: string | null;
  serviceBaseUrl: string;
  ingressUrl: string;
  /** The command API, /metrics and /events/unrouted: the OPS_PORT listener, or ingressUrl without one. */
  operationsUrl: string;
  /** Worker health and metrics (/healthz, /readyz, /metrics). */
  workerHealthUrl: string;
  /** The bookkeeper's console, on the operations listener. */
  consoleUrl: string;
  emulator: RunningEmulator | null;
  client: Client;
  ledger: StoredLedger;
  /** The accounting targets' index (what each target has taken), beside the ledger. */
  targetIndex: TargetIndexStore;
  /** Reports kept whole beside the books (certificates, payout period reports). */
  reports: ReportStore;
  /** Where the books are: the SQLite file, or the PostgreSQL url without its password. */
  ledgerLocation: string;
  /** Stops intake first (ingress), drains the worker, then closes the service side and Temporal. */
  stop(): Promise<void>;
}

/**
 * Everything booksync needs, each piece embedded unless its setting names a real one: a Temporal dev
 * server unless TEMPORAL_ADDRESS, the emulator unless SERVICE_BASE_URL. Then the ingress and the worker.
 */
export async function startBooksync(settings: Settings, logger: Logger): Promise<RunningBooksync> {
  const dataDir = path.resolve(settings.BOOKSYNC_DATA_DIR);
  ensurePrivateDir(dataDir);
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        logger.error({ err: error }, 'error while stopping');
      }
    }
  };

  // PAYLOAD_ENCRYPTION_REQUIRED without keys stops here, before anything starts.
  const encryption = payloadEncryptionFrom(settings);
  warnWhenPayloadsUnencrypted(settings, encryption, logger);
  // The embedded demo (booksync's own dev server) opens the codec server to its Web UI on a loopback listener.
  const codec = codecServerOptions(
    settings,
    encryption,
    settings.TEMPORAL_ADDRESS ? null : devServerUiUrl(settings.TEMPORAL_UI_PORT),
    logger,
  );
  try {
    let devServer: RunningDevServer | null = null;
    if (!settings.TEMPORAL_ADDRESS) {
      logger.info('starting the Temporal dev server');
      devServer = await startDevServer({
        // With encrypted payloads, the dev server's Web UI decodes them through booksync's codec server.
        ...(embeddedUiCanDecode(codec) ? { uiCodecEndpoint: `${operationsBaseUrl(settings)}/codec` } : {}),
        dbFile: path.join(dataDir, 'temporal.db'),
        port: settings.TEMPORAL_DEV_PORT,
        uiPort: settings.TEMPORAL_UI_PORT,
        namespace: settings.TEMPORAL_NAMESPACE,
        logger,
      });
      cleanups.push(() => devServer!.stop());
    }
    const target = temporalTarget(settings, settings.TEMPORAL_ADDRESS ?? devServer!.address);
    const { client, connection } = await connectClient(target);
    cleanups.push(() => connection.close());
    if (!devServer) await registerSearchAttributes(connection, settings.TEMPORAL_NAMESPACE);
    const workerConnection: NativeConnection = await connectWorker(target);
    cleanups.push(() => workerConnection.close());

    const emulator = settings.SERVICE_BASE_URL
      ? null
      : await startEmulatorWithDeliveries(
          { settings, dataDir, logger, connection, workerConnection, encryption },
          cleanups,
        );
    const serviceBaseUrl = settings.SERVICE_BASE_URL ?? emulator!.baseUrl;
    const service = new ServiceClient({
      baseUrl: serviceBaseUrl,
      apiKey: settings.SERVICE_API_KEY ?? emulator!.credentials.apiKey,
      timeoutMs: settings.SERVICE_TIMEOUT_MS,
      logger: logger.child({ component: 'service-client' }),
    });

    const ingressUrl =
      settings.INGRESS_PUBLIC_URL ?? `http://${settings.INGRESS_HOST}:${settings.INGRESS_PORT}`;
    const webhookSecrets = settings.WEBHOOK_SECRETS ?? [];
    if (emulator) webhookSecrets.push(await subscribeIngress(service, `${ingressUrl}/webhooks/service`));

    const running = await startBooksyncWorker({
      settings,
      logger,
      connection: workerConnection,
      client,
      service,
    });
    cleanups.push(() => running.stop());

    const ingress: RunningIngress = await startIngress({
      ...ingressSettings(settings),
      temporal: { client },
      webhookSecrets,
      // The command API: COMMAND_API_KEY, or in the embedded stack a key kept in embedded-credentials.json.
      commandApiKey:
        settings.COMMAND_API_KEY ?? (emulator ? ensureEmbeddedCommandApiKey(dataDir) : undefined),
      ...codec,
      commandKeysFile: path.join(dataDir, 'command-keys.db'),
      writeOffs: { ledger: running.ledger, service },
      console: stackConsole(settings, { running, service, devServer, embedded: !!emulator, dataDir, logger }),
      logger: logger.child({ component: 'ingress' }),
    });
    cleanups.push(() => ingress.close());

    return {
      temporalAddress: target.address,
      temporalUiUrl: devServer?.uiUrl ?? settings.TEMPORAL_UI_URL ?? null,
      serviceBaseUrl,
      ingressUrl: ingress.address,
      operationsUrl: ingress.operationsAddress,
      workerHealthUrl: running.healthUrl,
      consoleUrl: `${ingress.operationsAddress}/console`,
      emulator,
      client,
      ledger: running.ledger,
      targetIndex: running.targetIndex,
      reports: running.reports,
      ledgerLocation: running.ledgerLocation,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The embedded emulator of the service (no SERVICE_BASE_URL), its webhook deliveries run as Temporal workflows
 * by a delivery worker of their own; their stops are added to `cleanups`.
 */
/** The console's options in the stack: the worker's stores, and in the embedded stack its own password. */
function stackConsole(
  settings: Settings,
  stack: {
    running: { ledger: StoredLedger; targetIndex: TargetIndexStore; reports: ReportStore };
    service: ServiceClient;
    devServer: RunningDevServer | null | undefined;
    embedded: boolean;
    dataDir: string;
    logger: Logger;
  },
) {
  const { running, service, devServer, embedded, dataDir, logger } = stack;
  return consoleOptions(settings, {
    ledger: running.ledger,
    targetIndex: running.targetIndex,
    reports: running.reports,
    service,
    temporalUiUrl: devServer?.uiUrl ?? settings.TEMPORAL_UI_URL ?? null,
    logger: logger.child({ component: 'console' }),
    // The console's own password in the embedded stack (never the command API key's).
    ...(embedded && !settings.CONSOLE_PASSWORD
      ? { embeddedPassword: ensureEmbeddedConsolePassword(dataDir) }
      : {}),
  });
}

async function startEmulatorWithDeliveries(
  parts: {
    settings: Settings;
    dataDir: string;
    logger: Logger;
    connection: Connection;
    workerConnection: NativeConnection;
    encryption: PayloadEncryption | null;
  },
  cleanups: (() => Promise<void>)[],
): Promise<RunningEmulator> {
  const { settings, dataDir, logger, connection, workerConnection, encryption } = parts;
  const emulator = await startEmbeddedEmulator({
    dataDir,
    host: settings.EMULATOR_HOST,
    port: settings.EMULATOR_PORT,
    adminToken: settings.EMULATOR_ADMIN_TOKEN ?? randomBytes(24).toString('base64url'),
    logger,
    // The emulator's webhook deliveries are Temporal workflows too (spec 6.3 retries), on their own queue,
    // started by a client of their own. Their input is the event's whole envelope (amounts, memos,
    // references: business data), so with PAYLOAD_KEYS its client and worker encrypt as booksync's do.
    dispatcher: () =>
      new TemporalDispatcher({
        client: new Client({
          connection,
          namespace: settings.TEMPORAL_NAMESPACE,
          ...(encryption ? { dataConverter: encryption.dataConverter } : {}),
        }),
        taskQueue: defaultDeliveryTaskQueue,
      }),
  });
  cleanups.push(() => emulator.close());
  // Its bundle is cached like the worker's (src/runtime/worker/workflow-bundle.ts); without a cache, bundled here.
  const deliveryBundle = await cachedWorkflowBundle({
    workflowsPath: deliveryWorkflowsPath,
    // With encryption, delivery failures are encoded too: the bundle carries that failure converter.
    ...(encryption ? { failureConverterPath: encryption.dataConverter.failureConverterPath } : {}),
    dataDir: settings.BOOKSYNC_DATA_DIR,
    logger,
  }).catch(() => undefined);
  const deliveryWorker = await createDeliveryWorker({
    connection: workerConnection,
    namespace: settings.TEMPORAL_NAMESPACE,
    store: emulator.emulator.store,
    ...(encryption ? { dataConverter: encryption.dataConverter } : {}),
    ...(deliveryBundle ? { workflowBundle: { codePath: deliveryBundle.codePath } } : {}),
  });
  const deliveryRun = deliveryWorker.run();
  cleanups.push(async () => {
    if (deliveryWorker.getState() === 'RUNNING') deliveryWorker.shutdown();
    await deliveryRun;
  });
  return emulator;
}

/**
 * Points the account's single API webhook at the ingress (6.1 rule 1: creating replaces), reusing the
 * existing subscription and its secret when it already points there, so restarts keep signatures valid.
 */
async function subscribeIngress(service: ServiceClient, url: string): Promise<string> {
  const { webhooks } = await service.listWebhooks();
  const current = webhooks.find((webhook) => webhook.url === url && webhook.secret);
  if (current?.secret) return current.secret;
  const created = await service.createWebhook({ url });
  if (!created.secret) throw new Error('the service created an unsigned webhook subscription');
  return created.secret;
}
