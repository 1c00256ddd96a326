import path from 'node:path';
import { ensurePrivateDir, privateSqliteFile } from '@booksync/private-files';
import Database from 'better-sqlite3';
import { auditRowHash, genesisHash } from './audit-log.js';

// The console's own SQLite file, beside the command API's keys in BOOKSYNC_DATA_DIR (console.db, 0600): its
// sessions, its audit log and the secret its cookies are signed with. ':memory:' in tests.

export function openConsoleDb(file = ':memory:'): Database.Database {
  if (file !== ':memory:') ensurePrivateDir(path.dirname(file));
  privateSqliteFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.transaction(() => {
    // A session made before sessions were tied to their credential ends (its table is made again).
    if (!columnsOf(db, 'console_sessions').has('credential_mac'))
      db.exec('DROP TABLE IF EXISTS console_sessions');
    db.exec(`CREATE TABLE IF NOT EXISTS console_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS console_sessions (
        id_hash TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        role TEXT NOT NULL,
        who TEXT NOT NULL,
        csrf TEXT NOT NULL,
        credential_mac TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        last_seen INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS console_audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        who TEXT NOT NULL,
        role TEXT,
        action TEXT NOT NULL,
        detail TEXT NOT NULL,
        outcome TEXT NOT NULL,
        ip TEXT,
        prev_hash TEXT,
        hash TEXT
      );`);
    if (!columnsOf(db, 'console_audit').has('hash')) chainAuditRows(db);
    // Append-only: the database itself refuses to change or remove a row.
    db.exec(`CREATE TRIGGER IF NOT EXISTS console_audit_no_update BEFORE UPDATE ON console_audit
        BEGIN SELECT RAISE(ABORT, 'the console audit log is append-only'); END;
      CREATE TRIGGER IF NOT EXISTS console_audit_no_delete BEFORE DELETE ON console_audit
        BEGIN SELECT RAISE(ABORT, 'the console audit log is append-only'); END;`);
  })();
  return db;
}

function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
}

/** An audit log written before it was chained: its rows chained as they stand, once, before it is append-only. */
function chainAuditRows(db: Database.Database): void {
  db.exec(
    'ALTER TABLE console_audit ADD COLUMN prev_hash TEXT; ALTER TABLE console_audit ADD COLUMN hash TEXT;',
  );
  const update = db.prepare('UPDATE console_audit SET prev_hash = ?, hash = ? WHERE id = ?');
  let prev = genesisHash;
  const rows = db
    .prepare('SELECT id, at, who, role, action, detail, outcome, ip FROM console_audit ORDER BY id')
    .all() as Parameters<typeof auditRowHash>[1][];
  for (const row of rows) {
    const hash = auditRowHash(prev, row);
    update.run(prev, hash, row.id);
    prev = hash;
  }
}

/** An existing console.db, read-only (`booksync console audit verify`): nothing made, nothing migrated. */
export function openConsoleDbReadOnly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true });
}
