import pg from 'pg';
import { inTransaction } from '../../ledger/pg-transaction.js';
import {
  ConnectionLockBusy,
  type OAuthConnection,
  type OAuthConnectionStore,
  type SealedTokenStorage,
} from './connection-store.js';

// With the ledger on PostgreSQL (LEDGER_URL), a target's OAuth connection lives in the same database, in
// table oauth_connections (one row per target: the company and the refresh token, sealed as in the file), so
// every worker on every host refreshes the one connection. A refresh holds a session advisory lock of that
// target from reading the token to saving the rotated one (token-store.ts): one worker at a time, the others
// then read the token it stored. A worker that dies holding the lock drops its session, and the lock with it.

const schema = `CREATE TABLE IF NOT EXISTS oauth_connections (
  target text PRIMARY KEY,
  company_id text NOT NULL,
  refresh_token text NOT NULL,
  connected_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE oauth_connections ADD COLUMN IF NOT EXISTS refused_at timestamptz,
  ADD COLUMN IF NOT EXISTS refused_reason text,
  ADD COLUMN IF NOT EXISTS refresh_token_hard_expires_at timestamptz`;

/** The advisory lock keys: one for creating the table, one per target for its refreshes. */
const lockKey = (name: string) => `booksync:oauth:${name}`;

export interface PostgresOAuthConnectionsOptions {
  /** postgres:// url (LEDGER_URL). */
  url: string;
  /** The target the row is for (`quickbooks`, `xero`). */
  target: string;
  /** How long a refresh waits for another worker's. Default 60 s (a refresh takes at most 30 s). */
  lockTimeoutMs?: number;
  /**
   * The connection file of before LEDGER_URL: when the database has no connection of the target yet, the
   * file's is moved in (once; the file is left as it is, and unused from then on).
   */
  importFrom?: OAuthConnectionStore;
}

export class PostgresOAuthConnections implements OAuthConnectionStore {
  readonly where: string;
  private readonly pool: pg.Pool;
  private readonly target: string;
  private readonly importFrom: OAuthConnectionStore | undefined;
  private ready: Promise<void> | null = null;

  constructor(options: PostgresOAuthConnectionsOptions) {
    this.target = options.target;
    this.importFrom = options.importFrom;
    this.where = `the ledger's PostgreSQL database (${redactUrl(options.url)}, table oauth_connections)`;
    this.pool = new pg.Pool({
      connectionString: options.url,
      // One session holds the lock while the others read and save.
      max: 3,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 10_000,
      application_name: `booksync-oauth-${options.target}`,
      lock_timeout: options.lockTimeoutMs ?? 60_000,
      allowExitOnIdle: true,
    });
    this.pool.on('error', () => undefined);
  }

  async readConnection(): Promise<OAuthConnection | null> {
    await this.migrated();
    const { rows } = await this.query<{
      company_id: string;
      refresh_token: string;
      connected_at: Date;
      refused_at: Date | null;
      refused_reason: string | null;
      refresh_token_hard_expires_at: Date | null;
    }>(
      `SELECT company_id, refresh_token, connected_at, refused_at, refused_reason, refresh_token_hard_expires_at
         FROM oauth_connections WHERE target = $1`,
      [this.target],
    );
    const row = rows[0];
    return row
      ? {
          companyId: row.company_id,
          refreshToken: row.refresh_token,
          connectedAt: row.connected_at.toISOString(),
          ...(row.refused_at
            ? { refused: { at: row.refused_at.toISOString(), reason: row.refused_reason ?? 'refused' } }
            : {}),
          ...(row.refresh_token_hard_expires_at
            ? { refreshTokenHardExpiresAt: row.refresh_token_hard_expires_at.toISOString() }
            : {}),
        }
      : null;
  }

  async writeConnection(connection: OAuthConnection): Promise<void> {
    await this.exclusive(() =>
      this.upsert(
        connection.companyId,
        connection.refreshToken,
        connection.connectedAt,
        false,
        connection.refreshTokenHardExpiresAt,
      ),
    );
  }

  storage(companyId: string): SealedTokenStorage {
    return {
      load: async () => {
        const connection = await this.readConnection();
        return connection?.companyId === companyId ? connection.refreshToken : null;
      },
      save: (sealed, expiry) =>
        this.upsert(companyId, sealed, new Date().toISOString(), true, expiry?.hardExpiresAt),
      exclusive: (work) => this.exclusive(work),
      // Kept only while the refused token is the stored one (a reconnect meanwhile stored another).
      refused: async (sealed, reason) => {
        await this.migrated();
        await this.query(
          `UPDATE oauth_connections SET refused_at = now(), refused_reason = $4
            WHERE target = $1 AND company_id = $2 AND refresh_token = $3`,
          [this.target, companyId, sealed, reason],
        );
      },
    };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Runs `work` holding the target's advisory lock, in a session of its own (saves go through the pool). */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.migrated();
    const client = await this.pool.connect().catch((error: unknown) => {
      throw this.redacted(error);
    });
    let broken: Error | undefined;
    try {
      try {
        await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey(this.target)]);
      } catch (error) {
        broken = error as Error;
        if ((error as { code?: string }).code === '55P03')
          throw new ConnectionLockBusy(`another worker held the ${this.target} token refresh lock too long`);
        throw this.redacted(error);
      }
      try {
        return await work();
      } finally {
        await client
          .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey(this.target)])
          .catch((error: Error) => {
            // The session is dropped instead: its locks go with it.
            broken = error;
          });
      }
    } finally {
      client.release(broken);
    }
  }

  /**
   * Stores the company's token, replacing the target's row (a new connection may be another company's: the
   * refresh lock keeps a worker of the old company from saving after it, since it then finds no token of its
   * company). `keepConnectedAt`: a rotation keeps the connection's date, a new connection has its own.
   * `hardExpiresAt`: the token's hard expiry, when the token endpoint gave one.
   */
  private async upsert(
    companyId: string,
    sealed: string,
    connectedAt: string,
    keepConnectedAt: boolean,
    hardExpiresAt: string | undefined,
  ) {
    await this.migrated();
    await this.query(
      `INSERT INTO oauth_connections AS c (target, company_id, refresh_token, connected_at,
                                           refresh_token_hard_expires_at)
       VALUES ($1, $2, $3, $4, $6)
       ON CONFLICT (target) DO UPDATE SET
         company_id = excluded.company_id,
         refresh_token = excluded.refresh_token,
         connected_at = CASE WHEN $5 AND c.company_id = excluded.company_id THEN c.connected_at
                             ELSE excluded.connected_at END,
         refused_at = NULL,
         refused_reason = NULL,
         refresh_token_hard_expires_at = excluded.refresh_token_hard_expires_at,
         updated_at = now()`,
      [this.target, companyId, sealed, connectedAt, keepConnectedAt, hardExpiresAt ?? null],
    );
  }

  /**
   * Creates the table (and moves the file's connection in) once per store, under an advisory lock: several
   * workers may start at once.
   */
  private migrated(): Promise<void> {
    this.ready ??= inTransaction(this.pool, 'BEGIN', async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey('schema')]);
      await client.query(schema);
      const imported = this.importFrom && (await this.importFrom.readConnection());
      if (imported) {
        await client.query(
          `INSERT INTO oauth_connections (target, company_id, refresh_token, connected_at,
                                          refresh_token_hard_expires_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (target) DO NOTHING`,
          [
            this.target,
            imported.companyId,
            imported.refreshToken,
            imported.connectedAt,
            imported.refreshTokenHardExpiresAt ?? null,
          ],
        );
      }
    }).catch((error: unknown) => {
      this.ready = null;
      throw this.redacted(error);
    });
    return this.ready;
  }

  private async query<R extends pg.QueryResultRow>(sql: string, values: unknown[]) {
    try {
      return await this.pool.query<R>(sql, values);
    } catch (error) {
      throw this.redacted(error);
    }
  }

  /** Database errors never carry the url's password. */
  private redacted(error: unknown): Error {
    if (error instanceof ConnectionLockBusy) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new Error(`${this.target} connection in ${this.where}: ${message}`);
  }
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    // Parameters may carry a password too (?password=, sslkey paths...): never shown.
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'postgres://***';
  }
}
