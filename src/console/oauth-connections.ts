import type { OAuthConnectionStore } from '../targets/oauth/connection-store.js';
import { hardExpiryWarning } from '../targets/oauth/hard-expiry.js';

// An OAuth target's connection as its token store keeps it (the file or the PostgreSQL row `booksync targets
// connect` wrote and the workers refresh), read on each page view: connected to which company, not connected,
// or refused by the target (revoked or expired: the refresh was refused), whether or not a push has failed.
// Only the company id, dates and the target's error code are read out; never a token. A connected refresh
// token's hard expiry (QuickBooks) is warned of from HARD_EXPIRY_WARNING_DAYS before it (hard-expiry.ts).

/** One OAuth target's connection, as the console is given it. */
export interface OAuthConnectionSource {
  /** Where the connection is kept; null when the target's settings are incomplete (`problem` says why). */
  store: OAuthConnectionStore | null;
  problem?: string;
  /** QBO_REALM_ID / XERO_TENANT_ID when set: a connection to another company does not serve it. */
  companyId?: string | undefined;
}

export type OAuthConnectionState =
  | {
      state: 'connected';
      companyId: string;
      connectedAt: string;
      /** The refresh token's hard expiry and its warning, when it is near (or past); else null. */
      hardExpiry: { at: string; warning: string } | null;
    }
  | { state: 'not connected'; detail: string }
  | { state: 'refused'; companyId: string; refusedAt: string; reason: string }
  | { state: 'unreadable'; detail: string };

export const reconnectCommandLine = (target: string) => `npx booksync targets connect ${target}`;

export async function oauthConnectionState(
  source: OAuthConnectionSource,
  target: string,
  now: number = Date.now(),
): Promise<OAuthConnectionState> {
  if (!source.store) return { state: 'not connected', detail: source.problem ?? 'not configured' };
  let connection: Awaited<ReturnType<OAuthConnectionStore['readConnection']>>;
  try {
    connection = await source.store.readConnection();
  } catch (error) {
    return { state: 'unreadable', detail: error instanceof Error ? error.message : String(error) };
  }
  if (!connection) return { state: 'not connected', detail: `no connection in ${source.store.where}` };
  if (source.companyId && connection.companyId !== source.companyId) {
    return {
      state: 'not connected',
      detail: `the stored connection is to ${connection.companyId}, not ${source.companyId}`,
    };
  }
  if (connection.refused) {
    return {
      state: 'refused',
      companyId: connection.companyId,
      refusedAt: connection.refused.at,
      reason: connection.refused.reason,
    };
  }
  const warning = hardExpiryWarning(target, connection, now);
  return {
    state: 'connected',
    companyId: connection.companyId,
    connectedAt: connection.connectedAt,
    hardExpiry:
      warning && connection.refreshTokenHardExpiresAt
        ? { at: connection.refreshTokenHardExpiresAt, warning }
        : null,
  };
}

/** Each OAuth target's state, by target name (targets without an OAuth connection are absent). */
export async function oauthConnectionStates(
  sources: ReadonlyMap<string, OAuthConnectionSource> | undefined,
  now: number = Date.now(),
): Promise<Map<string, OAuthConnectionState>> {
  const states = new Map<string, OAuthConnectionState>();
  if (!sources) return states;
  await Promise.all(
    [...sources].map(async ([target, source]) =>
      states.set(target, await oauthConnectionState(source, target, now)),
    ),
  );
  return states;
}
