import type { Settings } from '../../config/settings.js';
import type { Logger } from '../../logging/logger.js';
import { TargetConfigurationError } from '../../targets/errors.js';
import type { OAuthConnectionStore, SealedTokenStorage } from '../../targets/oauth/connection-store.js';
import { PostgresOAuthConnections } from '../../targets/oauth/postgres-connection.js';
import { TokenCipher } from '../../targets/oauth/token-cipher.js';
import type { OAuthClientOptions } from '../../targets/oauth/token-store.js';

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

/**
 * A cloud target's OAuth pieces from the settings, built in this order: the app's credentials
 * (`<prefix>_CLIENT_ID`, `_CLIENT_SECRET`, `_TOKEN_KEY`, all three required), its connection file, the store
 * the connection is kept in (connectionStore), the token cipher, the token URL; and the options of a token
 * store keeping its sealed refresh token in a given storage.
 */
export function oauthApp<F extends OAuthConnectionStore>(
  settings: Settings,
  target: string,
  prefix: 'QBO' | 'XERO',
  pieces: { file: () => F; tokenUrl: () => string },
): {
  file: F;
  connection: OAuthConnectionStore;
  tokenUrl: string;
  tokenOptions(storage: SealedTokenStorage, logger?: Logger): OAuthClientOptions;
} {
  const clientId = settings[`${prefix}_CLIENT_ID`];
  const clientSecret = settings[`${prefix}_CLIENT_SECRET`];
  const key = settings[`${prefix}_TOKEN_KEY`];
  if (!clientId || !clientSecret || !key) {
    throw new TargetConfigurationError(target, [
      `${prefix}_CLIENT_ID, ${prefix}_CLIENT_SECRET and ${prefix}_TOKEN_KEY must be set`,
    ]);
  }
  const file = pieces.file();
  const connection = connectionStore(settings, target, file);
  const cipher = new TokenCipher(key);
  const tokenUrl = pieces.tokenUrl();
  return {
    file,
    connection,
    tokenUrl,
    tokenOptions: (storage, logger) => ({
      tokenUrl,
      clientId,
      clientSecret,
      storage,
      cipher,
      ...(logger ? { logger } : {}),
    }),
  };
}
