import type { SealedTokenStorage } from './token-store.js';

// Where `booksync targets connect <target>` leaves a connection and where the workers refresh it: a file
// (connection-file.ts, one host) or the ledger's PostgreSQL database (postgres-connection.ts, any number of
// workers on any number of hosts). Either way the refresh token is sealed (token-cipher.ts) and a refresh runs
// under a lock every worker sharing the connection honours (SealedTokenStorage.exclusive).

export interface OAuthConnection {
  companyId: string;
  refreshToken: string;
  connectedAt: string;
  /**
   * The target refused this refresh token (revoked, expired: the token endpoint's error and when), recorded
   * by the token store; cleared when another token is stored (a reconnect, a rotation).
   */
  refused?: { at: string; reason: string };
  /**
   * When the refresh token is refused whatever its use (Intuit's five-year limit, from the token endpoint's
   * `x_refresh_token_hard_expires_in`): a reconnect is needed before then (hard-expiry.ts warns).
   */
  refreshTokenHardExpiresAt?: string;
}

export interface OAuthConnectionStore {
  /** Where the connection is kept, for people (a file path, or the database table). */
  readonly where: string;
  readConnection(): Promise<OAuthConnection | null>;
  /** Replaces the connection (another company's included), under the refresh lock. */
  writeConnection(connection: OAuthConnection): Promise<void>;
  /** The token storage of one company: a token saved here keeps that company. */
  storage(companyId: string): SealedTokenStorage;
  /** Releases what the store holds open (a database pool); a file store holds nothing. */
  close?(): Promise<void>;
}

/** Another holder kept the connection's refresh lock too long: try again later (the target is not refused). */
export class ConnectionLockBusy extends Error {
  override readonly name: string = 'ConnectionLockBusy';
}
