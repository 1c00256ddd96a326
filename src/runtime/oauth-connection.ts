import type { Settings } from '../config/settings.js';
import { TargetConfigurationError } from '../targets/errors.js';
import type { OAuthConnectionStore } from '../targets/oauth/connection-store.js';
import { PostgresOAuthConnections } from '../targets/oauth/postgres-connection.js';

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
