import path from 'node:path';
import type { Settings } from '../config/settings.js';
import type { OAuthConnectionSource } from '../console/oauth-connections.js';
import type { ConsoleOptions } from '../console/options.js';
import type { LedgerPort } from '../ledger/ledger-port.js';
import type { ServiceClient } from '../service/client.js';
import { serviceReferences } from '../targets/service-references.js';
import type { TargetIndexStore } from '../targets/target-index.js';
import { isLoopback } from './codec-server-options.js';
import { quickBooksSettings } from './quickbooks-connection.js';
import { xeroSettings } from './xero-connection.js';

// The console's options from settings, for every process that runs the ingress (booksync start, booksync
// ingress): its passwords (the embedded stack's generated one when CONSOLE_PASSWORD is unset), its database
// beside the command API's keys, its idle timeout, and a Secure cookie unless the listener it is on (OPS_HOST
// with OPS_PORT, else INGRESS_HOST) is this machine only and no TLS proxy is in front (CONSOLE_BEHIND_TLS).

export function consoleOptions(
  settings: Settings,
  sources: {
    ledger: LedgerPort;
    targetIndex: TargetIndexStore;
    service?: ServiceClient;
    temporalUiUrl?: string | null;
    /** The embedded stack's console password, for when CONSOLE_PASSWORD is unset. */
    embeddedPassword?: string;
  },
): ConsoleOptions {
  const host = settings.OPS_PORT !== undefined ? settings.OPS_HOST : settings.INGRESS_HOST;
  return {
    ledger: sources.ledger,
    targetIndex: sources.targetIndex,
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
    temporalUiUrl: sources.temporalUiUrl ?? null,
    namespace: settings.TEMPORAL_NAMESPACE,
    oauthConnections: oauthConnectionSources(settings),
  };
}

/**
 * The connection stores of the OAuth targets ACCOUNTING_TARGET names, the ones `targets connect` writes and
 * the workers refresh; settings too incomplete to open one are the connection's state (not connected).
 */
function oauthConnectionSources(settings: Settings): Map<string, OAuthConnectionSource> {
  const sources = new Map<string, OAuthConnectionSource>();
  const open = (
    target: string,
    companyId: string | undefined,
    store: () => OAuthConnectionSource['store'],
  ) => {
    try {
      sources.set(target, { store: store(), companyId });
    } catch (error) {
      sources.set(target, { store: null, problem: error instanceof Error ? error.message : String(error) });
    }
  };
  for (const target of settings.ACCOUNTING_TARGET ?? []) {
    if (target === 'quickbooks')
      open(target, settings.QBO_REALM_ID, () => quickBooksSettings(settings).connection);
    else if (target === 'xero')
      open(target, settings.XERO_TENANT_ID, () => xeroSettings(settings).connection);
  }
  return sources;
}
