import path from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDir, privateSqliteFile } from '../storage/private-files.js';

// The console's own SQLite file, beside the command API's keys in BOOKSYNC_DATA_DIR (console.db, 0600): its
// sessions, its audit log and the secret its cookies are signed with. ':memory:' in tests.

export function openConsoleDb(file = ':memory:'): Database.Database {
  if (file !== ':memory:') ensurePrivateDir(path.dirname(file));
  privateSqliteFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE IF NOT EXISTS console_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS console_sessions (
      id_hash TEXT PRIMARY KEY,
      role TEXT NOT NULL,
      who TEXT NOT NULL,
      csrf TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS console_audit (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      who TEXT NOT NULL,
      role TEXT,
      action TEXT NOT NULL,
      detail TEXT NOT NULL,
      outcome TEXT NOT NULL,
      ip TEXT
    );`);
  return db;
}
