import path from 'node:path';
import type { Settings } from '../config/settings.js';
import type { ConsoleOptions } from '../console/options.js';
import type { TargetIndexStore } from '../flows/push/target-index.js';
import type { LedgerPort } from '../ledger/ledger-port.js';
import type { ReportReader } from '../ledger/report-store.js';
import { type Logger, silentLogger } from '../logging/logger.js';
import type { ServiceClient } from '../service/client.js';
import { serviceReferences } from '../targets/service-references.js';
import { isLoopback } from './codec-server-options.js';
import { oauthConnectionSources } from './targets/oauth-connection-sources.js';
import { boundTargetSetups } from './targets/target-setups.js';

// The console's options from settings, for every process that runs the ingress (booksync start, booksync
// ingress): its passwords (the embedded stack's generated one when CONSOLE_PASSWORD is unset), its database
// beside the command API's keys, its idle timeout, and a Secure cookie unless the listener it is on (OPS_HOST
// with OPS_PORT, else INGRESS_HOST) is this machine only and no TLS proxy is in front (CONSOLE_BEHIND_TLS).

export function consoleOptions(
  settings: Settings,
  sources: {
    ledger: LedgerPort;
    targetIndex: TargetIndexStore;
    reports: ReportReader;
    service?: ServiceClient;
    temporalUiUrl?: string | null;
    /** The embedded stack's console password, for when CONSOLE_PASSWORD is unset. */
    embeddedPassword?: string;
    /** Where the Connection page's target requests (a setup's reads and creates) are logged. */
    logger?: Logger;
  },
): ConsoleOptions {
  const host = settings.OPS_PORT !== undefined ? settings.OPS_HOST : settings.INGRESS_HOST;
  return {
    ledger: sources.ledger,
    targetIndex: sources.targetIndex,
    reports: sources.reports,
    targets: settings.ACCOUNTING_TARGET ?? [],
    credentials: {
      password: settings.CONSOLE_PASSWORD ?? sources.embeddedPassword,
      readonlyPassword: settings.CONSOLE_READONLY_PASSWORD,
    },
    storeFile: path.join(settings.BOOKSYNC_DATA_DIR, 'console.db'),
    timeZone: settings.BOOKS_TIME_ZONE,
    secureCookie: settings.CONSOLE_BEHIND_TLS || !isLoopback(host),
    sessionIdleMs: settings.CONSOLE_IDLE_MINUTES * 60 * 1000,
    ...(sources.service ? { references: serviceReferences(sources.service) } : {}),
    temporalUiUrl: sources.temporalUiUrl ?? settings.TEMPORAL_UI_URL ?? null,
    namespace: settings.TEMPORAL_NAMESPACE,
    oauthConnections: oauthConnectionSources(settings),
    targetSetup: boundTargetSetups(settings, sources.logger ?? silentLogger),
  };
}
