import path from 'node:path';
import { startIngress } from '../../ingress/main.js';
import { codecServerOptions } from '../../runtime/codec-server-options.js';
import { consoleOptions } from '../../runtime/console-options.js';
import { ingressSettings } from '../../runtime/ingress-settings.js';
import { type LedgerStore, openLedgerStore } from '../../runtime/ledger-store.js';
import { connectClient, temporalTarget } from '../../runtime/temporal/temporal-connection.js';
import { ServiceClient } from '../../service/client.js';
import { warnWhenPayloadsUnencrypted } from '../../temporal/data-converter.js';
import type { Command } from '../command.js';
import { requireSetting } from '../require-setting.js';
import { untilSignal } from '../shutdown.js';

export const ingressCommand: Command = {
  summary: 'run the webhook ingress alone (production)',
  usesTemporal: true,
  usage: `booksync ingress

Needs TEMPORAL_ADDRESS and WEBHOOK_SECRETS (or WEBHOOK_ALLOW_UNSIGNED=true for a legacy subscription).
Listens on INGRESS_HOST:INGRESS_PORT: POST /webhooks/service, /healthz, /readyz, /metrics, /events/unrouted,
and the command API (/commands/...) when COMMAND_API_KEY is set. With OPS_PORT, the command API, /metrics and
/events/unrouted move to OPS_HOST:OPS_PORT, and INGRESS_PORT serves only the webhook route and health.
Without OPS_PORT, /metrics and /events/unrouted answer only to Authorization: Bearer COMMAND_API_KEY.
With PAYLOAD_KEYS and CODEC_SERVER_TOKEN it serves Temporal's codec protocol (POST /codec/decode) beside the
command API to callers presenting Authorization: Bearer CODEC_SERVER_TOKEN (CODEC_SERVER_OPEN=true: to anyone
who reaches the listener, on purpose); without either it is not served.
With CONSOLE_PASSWORD it also serves the bookkeeper's console (/console, beside the command API), reading the
ledger's store (LEDGER_URL, or else LEDGER_DB) as the CLI does.
With COMMAND_API_KEY, SERVICE_BASE_URL and SERVICE_API_KEY the command API writes off payment links
(POST /commands/paymentLinks/{id}/writeOff: recorded in the ledger's store, then the link lowered at the
service); without them a write-off answers 503.`,
  async run({ settings, logger }) {
    const address = requireSetting(settings, 'TEMPORAL_ADDRESS', 'ingress');
    if (!settings.WEBHOOK_SECRETS?.length && !settings.WEBHOOK_ALLOW_UNSIGNED) {
      requireSetting(settings, 'WEBHOOK_SECRETS', 'ingress');
    }
    const target = temporalTarget(settings, address);
    warnWhenPayloadsUnencrypted(settings, target.encryption, logger);
    // Decided before connecting: a contradictory codec setting stops here.
    const codec = codecServerOptions(settings, target.encryption, null, logger);
    const { client, connection } = await connectClient(target);
    // The console reads the books: served when its password is set (an ingress apart from the books may
    // have no ledger to read).
    // So do write-offs, which also lower the link at the service.
    const writesOff = Boolean(
      settings.COMMAND_API_KEY && settings.SERVICE_BASE_URL && settings.SERVICE_API_KEY,
    );
    const store: LedgerStore | null =
      settings.CONSOLE_PASSWORD || writesOff ? await openLedgerStore(settings, logger) : null;
    const service =
      writesOff && settings.SERVICE_BASE_URL && settings.SERVICE_API_KEY
        ? new ServiceClient({
            baseUrl: settings.SERVICE_BASE_URL,
            apiKey: settings.SERVICE_API_KEY,
            timeoutMs: settings.SERVICE_TIMEOUT_MS,
            logger: logger.child({ component: 'service-client' }),
          })
        : null;
    const ingress = await startIngress({
      ...ingressSettings(settings),
      temporal: { client },
      webhookSecrets: settings.WEBHOOK_SECRETS ?? [],
      commandApiKey: settings.COMMAND_API_KEY,
      ...codec,
      commandKeysFile: path.join(settings.BOOKSYNC_DATA_DIR, 'command-keys.db'),
      ...(store && service ? { writeOffs: { ledger: store.ledger, service } } : {}),
      ...(store && settings.CONSOLE_PASSWORD
        ? {
            console: consoleOptions(settings, {
              ledger: store.ledger,
              targetIndex: store.targetIndex,
              reports: store.reports,
              logger: logger.child({ component: 'console' }),
            }),
          }
        : {}),
      logger,
    });
    await untilSignal();
    await ingress.close();
    await store?.close();
    await connection.close();
    return 0;
  },
};
