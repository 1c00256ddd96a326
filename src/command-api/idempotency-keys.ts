import { createHash } from 'node:crypto';
import path from 'node:path';
import { ensurePrivateDir, privateSqliteFile } from '@booksync/private-files';
import Database from 'better-sqlite3';
import type { CommandAnswer } from './outcome.js';

// Idempotency keys of the command API, bound to the request they came with (Stripe's rule): the same key
// with the same request answers the first outcome again; with another request (another amount, another
// link) it is refused, and nothing changes. Kept for seven days, in a SQLite file beside the ingress
// (':memory:' in tests). Several ingress replicas need one shared store: see docs/architecture.md, "The command API".

const keptMs = 7 * 24 * 60 * 60 * 1000;

export type { CommandAnswer as StoredAnswer } from './outcome.js';

export type KeyClaim =
  | { state: 'new' }
  | { state: 'same'; answer: CommandAnswer | null }
  | { state: 'reused' };

/** What makes two requests the same command: method, route, its parameters, and the body. */
export function requestFingerprint(method: string, route: string, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method, route, params ?? null, body ?? null]))
    .digest('hex');
}

export class CommandKeyStore {
  private readonly db: Database.Database;
  private constructor(db: Database.Database) {
    this.db = db;
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS command_keys (
      scope TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      status INTEGER,
      body TEXT,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (scope, key)
    )`);
  }

  static open(file = ':memory:'): CommandKeyStore {
    if (file !== ':memory:') ensurePrivateDir(path.dirname(file));
    privateSqliteFile(file);
    return new CommandKeyStore(new Database(file));
  }

  /** Binds the key to this request on first use; says whether it was seen, and its stored answer. */
  claim(scope: string, key: string, fingerprint: string, now = Date.now()): KeyClaim {
    return this.db.transaction((): KeyClaim => {
      this.db.prepare('DELETE FROM command_keys WHERE created_at < ?').run(now - keptMs);
      const row = this.db
        .prepare('SELECT fingerprint, status, body FROM command_keys WHERE scope = ? AND key = ?')
        .get(scope, key) as { fingerprint: string; status: number | null; body: string | null } | undefined;
      if (!row) {
        this.db
          .prepare('INSERT INTO command_keys (scope, key, fingerprint, created_at) VALUES (?, ?, ?, ?)')
          .run(scope, key, fingerprint, now);
        return { state: 'new' };
      }
      if (row.fingerprint !== fingerprint) return { state: 'reused' };
      return {
        state: 'same',
        answer: row.status === null ? null : { status: row.status, body: JSON.parse(row.body ?? 'null') },
      };
    })();
  }

  /** The command's final answer (not a 202 or a 5xx: those are asked again). */
  answer(scope: string, key: string, answer: CommandAnswer): void {
    this.db
      .prepare('UPDATE command_keys SET status = ?, body = ? WHERE scope = ? AND key = ?')
      .run(answer.status, JSON.stringify(answer.body), scope, key);
  }

  close(): void {
    this.db.close();
  }
}
