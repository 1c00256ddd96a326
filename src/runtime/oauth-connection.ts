import type { Settings } from '../config/settings.js';
import type { Logger } from '../logging/logger.js';
import { TargetConfigurationError } from '../targets/errors.js';
import type { OAuthConnectionStore } from '../targets/oauth/connection-store.js';
import { PostgresOAuthConnections } from '../targets/oauth/postgres-connection.js';
import type { TokenCipher } from '../targets/oauth/token-cipher.js';
import type { OAuthClientOptions, SealedTokenStorage } from '../targets/oauth/token-store.js';

// Where a cloud target's OAuth connection is kept, for QuickBooks and Xero alike: in the ledger's PostgreSQL
// database with LEDGER_URL (every worker on every host shares it; the file's connection moves in), else in
// the target's token file.

/** The connection's store: PostgreSQL with LEDGER_URL, else `file`. */
export function connectionStore(
  settings: Settings,
  target: string,
  file: OAuthConnectionStore,
): OAuthConnectionStore {
  return settings.LEDGER_URL
    ? new PostgresOAuthConnections({ url: settings.LEDGER_URL, target, importFrom: file })
    : file;
}

/** The company the settings name, else the one `targets connect` saved; none: `notConnected` refuses. */
export async function connectedCompany(
  configured: string | undefined,
  connection: OAuthConnectionStore,
  target: string,
  notConnected: string,
): Promise<string> {
  const companyId = configured ?? (await connection.readConnection())?.companyId;
  if (!companyId) throw new TargetConfigurationError(target, [notConnected]);
  return companyId;
}

/** The app's credentials, `<prefix>_CLIENT_ID`, `_CLIENT_SECRET` and `_TOKEN_KEY`, all three required. */
export function appCredentials(
  settings: Settings,
  target: string,
  prefix: 'QBO' | 'XERO',
): { clientId: string; clientSecret: string; key: string } {
  const clientId = settings[`${prefix}_CLIENT_ID`];
  const clientSecret = settings[`${prefix}_CLIENT_SECRET`];
  const key = settings[`${prefix}_TOKEN_KEY`];
  if (!clientId || !clientSecret || !key) {
    throw new TargetConfigurationError(target, [
      `${prefix}_CLIENT_ID, ${prefix}_CLIENT_SECRET and ${prefix}_TOKEN_KEY must be set`,
    ]);
  }
  return { clientId, clientSecret, key };
}

/** A token store's options: the app's credentials, where the sealed refresh token is kept, the logger. */
export function tokenStoreOptions(
  app: { tokenUrl: string; clientId: string; clientSecret: string; cipher: TokenCipher },
  storage: SealedTokenStorage,
  logger?: Logger,
): OAuthClientOptions {
  return { ...app, storage, ...(logger ? { logger } : {}) };
}
