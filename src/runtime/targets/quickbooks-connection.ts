import { dataFile, type Settings } from '../../config/settings.js';
import type { Logger } from '../../logging/logger.js';
import {
  type AccountMapping,
  parseVendorExpenseAccounts,
  type VendorExpenseAccounts,
} from '../../targets/account-mapping.js';
import type { OAuthConnectionStore } from '../../targets/oauth/connection-store.js';
import {
  OAuthTokenStore,
  QuickBooksConnectionFile,
  QuickBooksTarget,
  RECONNECT,
} from '../../targets/quickbooks/index.js';
import { connectedCompany, oauthApp } from './oauth-connection.js';

// The QuickBooks Online pieces the settings describe, for the worker (the target) and for
// `booksync targets connect quickbooks` (the consent), so both use the same connection: in the ledger's
// PostgreSQL database with LEDGER_URL (every worker on every host shares it), else in QBO_TOKEN_FILE.

export interface QuickBooksSettings {
  /** QBO_TOKEN_FILE (or its default): the connection without LEDGER_URL. */
  file: QuickBooksConnectionFile;
  /** Where the connection is: PostgreSQL with LEDGER_URL, else `file`. */
  connection: OAuthConnectionStore;
  tokenUrl: string;
  tokenStore(realmId: string, logger?: Logger): OAuthTokenStore;
}

export function quickBooksSettings(settings: Settings): QuickBooksSettings {
  const app = oauthApp(settings, 'quickbooks', 'QBO', {
    file: () => new QuickBooksConnectionFile(dataFile(settings, 'QBO_TOKEN_FILE')),
    tokenUrl: () => new URL('/oauth2/v1/tokens/bearer', settings.QBO_OAUTH_URL).toString(),
  });
  return {
    file: app.file,
    connection: app.connection,
    tokenUrl: app.tokenUrl,
    tokenStore: (realmId, logger) =>
      new OAuthTokenStore(app.tokenOptions(app.connection.storage(realmId), logger)),
  };
}

/** The target for the company QBO_REALM_ID names, or else the one `targets connect` saved. */
export async function openQuickBooksTarget(options: {
  settings: Settings;
  accounts: AccountMapping;
  /** VENDOR_EXPENSE_ACCOUNTS already parsed; else read from `settings`. */
  vendorExpenses?: VendorExpenseAccounts;
  logger: Logger;
  /** The settings' connection already opened (its store is then not opened again). */
  qbo?: QuickBooksSettings;
}): Promise<QuickBooksTarget> {
  const { settings, accounts, logger } = options;
  const qbo = options.qbo ?? quickBooksSettings(settings);
  const realmId = await connectedCompany(
    settings.QBO_REALM_ID,
    qbo.connection,
    'quickbooks',
    `not connected to a QuickBooks company: ${RECONNECT}`,
  );
  return new QuickBooksTarget({
    baseUrl: settings.QBO_BASE_URL,
    realmId,
    tokenStore: qbo.tokenStore(realmId, logger),
    accounts,
    vendorExpenses:
      options.vendorExpenses ?? parseVendorExpenseAccounts(settings.VENDOR_EXPENSE_ACCOUNTS, accounts),
    matching: settings.TARGET_MATCHING,
    taxCode: settings.QBO_TAX_CODE,
    logger,
  });
}
