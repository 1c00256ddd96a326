import path from 'node:path';
import type { LedgerPort } from '../accounting/ledger-port.js';
import { serviceReferences } from '../accounting/targets/service-references.js';
import type { TargetIndexStore } from '../accounting/targets/target-index.js';
import type { Settings } from '../config/settings.js';
import type { ConsoleOptions } from '../console/options.js';
import type { ServiceClient } from '../service/client.js';
import { isLoopback } from './codec-server-options.js';

// The console's options from settings, for every process that runs the ingress (booksync start, booksync
// ingress): its passwords, its database beside the command API's keys, and a Secure cookie unless the
// listener it is on (OPS_HOST with OPS_PORT, else INGRESS_HOST) is this machine only.

export function consoleOptions(
  settings: Settings,
  sources: {
    ledger: LedgerPort;
    targetIndex: TargetIndexStore;
    service?: ServiceClient;
    temporalUiUrl?: string | null;
  },
): ConsoleOptions {
  const host = settings.OPS_PORT !== undefined ? settings.OPS_HOST : settings.INGRESS_HOST;
  return {
    ledger: sources.ledger,
    targetIndex: sources.targetIndex,
    targets: settings.ACCOUNTING_TARGET ?? [],
    credentials: {
      password: settings.CONSOLE_PASSWORD,
      readonlyPassword: settings.CONSOLE_READONLY_PASSWORD,
    },
    storeFile: path.join(settings.BOOKSYNC_DATA_DIR, 'console.db'),
    timeZone: settings.BOOKS_TIME_ZONE,
    secureCookie: !isLoopback(host),
    ...(sources.service ? { references: serviceReferences(sources.service) } : {}),
    temporalUiUrl: sources.temporalUiUrl ?? null,
    namespace: settings.TEMPORAL_NAMESPACE,
  };
}
