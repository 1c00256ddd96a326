import { durationMs } from '../../config/setting-types.js';
import { dataFile, type Settings } from '../../config/settings.js';
import type { Logger } from '../../logging/logger.js';
import {
  type AccountMapping,
  parseVendorExpenseAccounts,
  type VendorExpenseAccounts,
} from '../../targets/account-mapping.js';
import type { OAuthConnectionStore, SealedTokenStorage } from '../../targets/oauth/connection-store.js';
import { XeroConnectionFile } from '../../targets/xero/connection-file.js';
import { XERO_RECONNECT, XeroTokenStore } from '../../targets/xero/token-store.js';
import type { XeroTarget } from '../../targets/xero/xero-target.js';
import { connectedCompany, oauthApp } from './oauth-connection.js';

// The Xero pieces the settings describe, for the worker (the target) and for `booksync targets connect xero`
// (the consent), so both use the same connection: in the ledger's PostgreSQL database with LEDGER_URL (every
// worker on every host shares it), else in XERO_TOKEN_FILE.

export interface XeroSettings {
  /** XERO_TOKEN_FILE (or its default): the connection without LEDGER_URL. */
  file: XeroConnectionFile;
  /** Where the connection is: PostgreSQL with LEDGER_URL, else `file`. */
  connection: OAuthConnectionStore;
  tokenUrl: string;
  /** Xero's GET /connections: the organisations a new access token reaches. */
  connectionsUrl: string;
  tokenStore(tenantId: string, logger?: Logger): XeroTokenStore;
  /** A token store saving to other storage (`targets connect xero` holds the first token until it knows the tenant). */
  tokenStoreWith(storage: SealedTokenStorage, logger?: Logger): XeroTokenStore;
}

export function xeroSettings(settings: Settings): XeroSettings {
  const app = oauthApp(settings, 'xero', 'XERO', {
    file: () => new XeroConnectionFile(dataFile(settings, 'XERO_TOKEN_FILE')),
    tokenUrl: () => settings.XERO_TOKEN_URL,
  });
  return {
    file: app.file,
    connection: app.connection,
    tokenUrl: app.tokenUrl,
    connectionsUrl: new URL('/connections', settings.XERO_BASE_URL).toString(),
    tokenStore: (tenantId, logger) =>
      new XeroTokenStore(app.tokenOptions(app.connection.storage(tenantId), logger)),
    tokenStoreWith: (storage, logger) => new XeroTokenStore(app.tokenOptions(storage, logger)),
  };
}

/** The target for the organisation XERO_TENANT_ID names, or else the one `targets connect xero` saved. */
export async function openXeroTarget(options: {
  settings: Settings;
  accounts: AccountMapping;
  /** VENDOR_EXPENSE_ACCOUNTS already parsed; else read from `settings`. */
  vendorExpenses?: VendorExpenseAccounts;
  logger: Logger;
  /** The Xero pieces already built from `settings` (their connection store reused, not opened again). */
  xero?: XeroSettings;
}): Promise<XeroTarget> {
  const { settings, accounts, logger } = options;
  const xero = options.xero ?? xeroSettings(settings);
  const tenantId = await connectedCompany(
    settings.XERO_TENANT_ID,
    xero.connection,
    'xero',
    `not connected to a Xero organisation: ${XERO_RECONNECT}`,
  );
  // The adapter (and Xero's SDK under it) loaded only by what opens the target: a command that reads the
  // connection (`booksync targets status`, the console) does not pay for it.
  const { XeroTarget } = await import('../../targets/xero/xero-target.js');
  return new XeroTarget({
    baseUrl: settings.XERO_BASE_URL,
    tenantId,
    tokenStore: xero.tokenStore(tenantId, logger),
    accounts,
    vendorExpenses:
      options.vendorExpenses ?? parseVendorExpenseAccounts(settings.VENDOR_EXPENSE_ACCOUNTS, accounts),
    matching: settings.TARGET_MATCHING,
    ...(settings.XERO_TAX_TYPE ? { taxType: settings.XERO_TAX_TYPE } : {}),
    minuteMs: durationMs(settings.XERO_RATE_WINDOW),
    logger,
  });
}
