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

/** Where the sealed refresh token lives (a file, a table row...). */
export interface SealedTokenStorage {
  load(): Promise<string | null>;
  /** `expiry`: when the token endpoint said the refresh token stops working whatever its use. */
  save(sealed: string, expiry?: RefreshTokenExpiry): Promise<void>;
  /**
   * Runs `work` (read the token, refresh it at the target, save the rotated one) while no other holder of the
   * same storage does, across processes and hosts. Storage only one process uses may leave it out.
   */
  exclusive?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Records that the target refused this stored token (revoked, expired): the connection's state for the
   * console until a reconnect or a successful refresh stores another token. Called holding the lock; a store
   * without it keeps no such state.
   */
  refused?(sealed: string, reason: string): Promise<void>;
}

/** What the token endpoint said of a refresh token's life (QBO's `x_refresh_token_hard_expires_in`). */
export interface RefreshTokenExpiry {
  /** ISO time after which the refresh token is refused whatever its use (Intuit's five-year limit). */
  hardExpiresAt?: string;
}

/** Another holder kept the connection's refresh lock too long: try again later (the target is not refused). */
export class ConnectionLockBusy extends Error {
  override readonly name: string = 'ConnectionLockBusy';
}
