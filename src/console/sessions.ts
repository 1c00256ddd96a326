import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';

// Console sessions, server-side: the cookie carries a random id (32 bytes), the database only its hash, so a
// copy of console.db opens no session. Each session has its synchronizer CSRF token, sent in every form and
// compared on every POST. Signing out deletes the row; a session ends after `lifetimeMs` whatever happens.

export const ConsoleRole = z.enum(['bookkeeper', 'read-only']);
export type ConsoleRole = z.infer<typeof ConsoleRole>;

export const ConsoleSession = z.object({
  role: ConsoleRole,
  /** Who signed in, for the audit log: the name given at sign-in and the credential used. */
  who: z.string(),
  csrf: z.string(),
});
export type ConsoleSession = z.infer<typeof ConsoleSession>;

const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
export const randomToken = () => randomBytes(32).toString('base64url');

export class SessionStore {
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement<[string, number], ConsoleSession>;
  readonly #delete: Database.Statement<[string]>;
  readonly #expire: Database.Statement<[number]>;
  readonly #secret: Database.Statement<[], { secret: string }>;
  readonly #setSecret: Database.Statement<[string]>;

  constructor(
    db: Database.Database,
    private readonly lifetimeMs = 12 * 60 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {
    this.#insert = db.prepare(
      'INSERT INTO console_sessions (id_hash, role, who, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#get = db.prepare(
      'SELECT role, who, csrf FROM console_sessions WHERE id_hash = ? AND expires_at > ?',
    );
    this.#delete = db.prepare('DELETE FROM console_sessions WHERE id_hash = ?');
    this.#expire = db.prepare('DELETE FROM console_sessions WHERE expires_at <= ?');
    this.#secret = db.prepare('SELECT secret FROM console_secret WHERE id = 1');
    this.#setSecret = db.prepare('INSERT OR IGNORE INTO console_secret (id, secret) VALUES (1, ?)');
  }

  /** The secret the console's cookies are signed with: made once, kept across restarts. */
  cookieSecret(): string {
    this.#setSecret.run(randomToken());
    return (this.#secret.get() as { secret: string }).secret;
  }

  /** A new session; returns the id the cookie carries. */
  create(role: ConsoleRole, who: string): { id: string; session: ConsoleSession } {
    this.#expire.run(this.now());
    const id = randomToken();
    const session = { role, who, csrf: randomToken() };
    const now = this.now();
    this.#insert.run(hashOf(id), role, who, session.csrf, new Date(now).toISOString(), now + this.lifetimeMs);
    return { id, session };
  }

  get(id: string): ConsoleSession | null {
    const row = this.#get.get(hashOf(id), this.now());
    return row ? ConsoleSession.parse(row) : null;
  }

  delete(id: string): void {
    this.#delete.run(hashOf(id));
  }

  /** How long a session lasts, for the cookie's Max-Age. */
  get lifetimeSeconds(): number {
    return Math.floor(this.lifetimeMs / 1000);
  }
}
