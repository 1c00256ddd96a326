import path from 'node:path';
import type { AccountMapping } from '../accounting/targets/account-mapping.js';
import { TargetConfigurationError } from '../accounting/targets/errors.js';
import {
  OAuthTokenStore,
  QuickBooksConnectionFile,
  QuickBooksTarget,
  RECONNECT,
  TokenCipher,
} from '../accounting/targets/quickbooks/index.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../logging/logger.js';

// The QuickBooks Online pieces the settings describe, for the worker (the target) and for
// `booksync targets connect quickbooks` (the consent), so both read the same connection file.

export interface QuickBooksSettings {
  file: QuickBooksConnectionFile;
  tokenUrl: string;
  tokenStore(realmId: string, logger?: Logger): OAuthTokenStore;
}

export function quickBooksSettings(settings: Settings): QuickBooksSettings {
  const { QBO_CLIENT_ID: clientId, QBO_CLIENT_SECRET: clientSecret, QBO_TOKEN_KEY: key } = settings;
  if (!clientId || !clientSecret || !key) {
    throw new TargetConfigurationError('quickbooks', [
      'QBO_CLIENT_ID, QBO_CLIENT_SECRET and QBO_TOKEN_KEY must be set',
    ]);
  }
  const file = new QuickBooksConnectionFile(
    settings.QBO_TOKEN_FILE ?? path.join(settings.BOOKSYNC_DATA_DIR, 'quickbooks-connection.json'),
  );
  const cipher = new TokenCipher(key);
  const tokenUrl = new URL('/oauth2/v1/tokens/bearer', settings.QBO_OAUTH_URL).toString();
  return {
    file,
    tokenUrl,
    tokenStore: (realmId, logger) =>
      new OAuthTokenStore({
        tokenUrl,
        clientId,
        clientSecret,
        storage: file.storage(realmId),
        cipher,
        ...(logger ? { logger } : {}),
      }),
  };
}

/** The target for the company QBO_REALM_ID names, or else the one `targets connect` saved. */
export async function openQuickBooksTarget(options: {
  settings: Settings;
  accounts: AccountMapping;
  logger: Logger;
}): Promise<QuickBooksTarget> {
  const { settings, accounts, logger } = options;
  const qbo = quickBooksSettings(settings);
  const saved = await qbo.file.read();
  const realmId = settings.QBO_REALM_ID ?? saved?.realmId;
  if (!realmId) {
    throw new TargetConfigurationError('quickbooks', [`not connected to a QuickBooks company: ${RECONNECT}`]);
  }
  return new QuickBooksTarget({
    baseUrl: settings.QBO_BASE_URL,
    realmId,
    tokenStore: qbo.tokenStore(realmId, logger),
    accounts,
    matching: settings.TARGET_MATCHING,
    logger,
  });
}
