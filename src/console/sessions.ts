import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';

// Console sessions, server-side: the cookie carries a random id (32 bytes), the database only its hash, so a
// copy of console.db opens no session. Each session has its synchronizer CSRF token, sent in every form and
// compared on every POST. A session is tied to the credential that made it: its row keeps an HMAC of the
// session id keyed with that credential, checked on every request against the account's credential now, so
// a changed password (or a restart with other credentials) ends it; and a copy of console.db, without the
// ids, gives nothing to test a guessed password against. Signing out deletes the row; a session ends after
// `idleMs` without a request, and after `lifetimeMs` whatever happens.

export const ConsoleRole = z.enum(['bookkeeper', 'read-only']);
export type ConsoleRole = z.infer<typeof ConsoleRole>;

export const ConsoleSession = z.object({
  /** The configured account signed in to (credentials.ts). */
  account: z.string(),
  role: ConsoleRole,
  /** Who signed in, for the audit log: the account and the credential used. */
  who: z.string(),
  csrf: z.string(),
});
export type ConsoleSession = z.infer<typeof ConsoleSession>;

const SessionRow = ConsoleSession.extend({ credential_mac: z.string() });

const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
const credentialMac = (credential: string, id: string) =>
  createHmac('sha256', credential).update(id).digest();
export const randomToken = () => randomBytes(32).toString('base64url');

export interface SessionStoreOptions {
  /** The account's credential now; undefined when the account is no longer configured. */
  credentialOf: (account: string) => string | undefined;
  /** Default 12 hours. */
  lifetimeMs?: number;
  /** Default 30 minutes. */
  idleMs?: number;
  now?: () => number;
}

export class SessionStore {
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement<[string, number, number], z.infer<typeof SessionRow>>;
  readonly #touch: Database.Statement<[number, string]>;
  readonly #delete: Database.Statement<[string]>;
  readonly #expire: Database.Statement<[number, number]>;
  readonly #secret: Database.Statement<[], { secret: string }>;
  readonly #setSecret: Database.Statement<[string]>;
  readonly #credentialOf: (account: string) => string | undefined;
  readonly #lifetimeMs: number;
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(db: Database.Database, options: SessionStoreOptions) {
    this.#credentialOf = options.credentialOf;
    this.#lifetimeMs = options.lifetimeMs ?? 12 * 60 * 60 * 1000;
    this.#idleMs = options.idleMs ?? 30 * 60 * 1000;
    this.#now = options.now ?? Date.now;
    this.#insert = db.prepare(
      'INSERT INTO console_sessions (id_hash, account, role, who, csrf, credential_mac, created_at, expires_at, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#get = db.prepare(
      'SELECT account, role, who, csrf, credential_mac FROM console_sessions WHERE id_hash = ? AND expires_at > ? AND last_seen > ?',
    );
    this.#touch = db.prepare('UPDATE console_sessions SET last_seen = ? WHERE id_hash = ?');
    this.#delete = db.prepare('DELETE FROM console_sessions WHERE id_hash = ?');
    this.#expire = db.prepare('DELETE FROM console_sessions WHERE expires_at <= ? OR last_seen <= ?');
    this.#secret = db.prepare('SELECT secret FROM console_secret WHERE id = 1');
    this.#setSecret = db.prepare('INSERT OR IGNORE INTO console_secret (id, secret) VALUES (1, ?)');
  }

  /** The secret the console's cookies are signed with: made once, kept across restarts. */
  cookieSecret(): string {
    this.#setSecret.run(randomToken());
    return (this.#secret.get() as { secret: string }).secret;
  }

  /** A new session for `account`, signed in with `credential`; returns the id the cookie carries. */
  create(
    as: { account: string; role: ConsoleRole; who: string },
    credential: string,
  ): { id: string; session: ConsoleSession } {
    const now = this.#now();
    this.#expire.run(now, now - this.#idleMs);
    const id = randomToken();
    const session = { ...as, csrf: randomToken() };
    this.#insert.run(
      hashOf(id),
      as.account,
      as.role,
      as.who,
      session.csrf,
      credentialMac(credential, id).toString('hex'),
      new Date(now).toISOString(),
      now + this.#lifetimeMs,
      now,
    );
    return { id, session };
  }

  /** The session the id opens now (and it is seen now), or null: unknown, ended, idle, or its credential changed. */
  get(id: string): ConsoleSession | null {
    const now = this.#now();
    const row = this.#get.get(hashOf(id), now, now - this.#idleMs);
    if (!row) return null;
    const { credential_mac, ...session } = SessionRow.parse(row);
    const credential = this.#credentialOf(session.account);
    const mac = Buffer.from(credential_mac, 'hex');
    const expected = credential === undefined ? null : credentialMac(credential, id);
    if (!expected || mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
      this.delete(id);
      return null;
    }
    this.#touch.run(now, hashOf(id));
    return session;
  }

  delete(id: string): void {
    this.#delete.run(hashOf(id));
  }

  /** How long a session lasts at most, for the cookie's Max-Age. */
  get lifetimeSeconds(): number {
    return Math.floor(this.#lifetimeMs / 1000);
  }
}
