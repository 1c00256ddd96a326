import { privateSqliteFile } from '@booksync/private-files';
import Database from 'better-sqlite3';
import { EmulatorClock, type TimeSource } from './clock.js';
import { newEventId } from './ids.js';
import { migrate } from './migrations.js';
import { insertRow } from './sql.js';
import { cachePreparedStatements } from './statement-cache.js';

export interface EventRow {
  id: string;
  org_id: string;
  category: string;
  associated_object_type: string;
  associated_object_id: string;
  created_at: string;
  dispatched_at: string | null;
  seq: number;
}

export interface NewEvent {
  orgId: string;
  category: string;
  objectType: string;
  objectId: string;
}

/** What a read needs: the connection and one instant. */
export interface Reader {
  readonly db: Database.Database;
  readonly now: Date;
}

/** A write transaction: one instant for every row it touches, and the outbox for its events. */
export interface Tx extends Reader {
  seq(): number;
  emit(event: NewEvent): EventRow;
}

export type CommitListener = (events: EventRow[]) => void;

export interface StoreOptions {
  /** A file path, or ':memory:'. */
  dbPath: string;
  time?: TimeSource;
}

export class Store {
  readonly db: Database.Database;
  readonly clock: EmulatorClock;
  private readonly listeners: CommitListener[] = [];

  constructor(options: StoreOptions) {
    // Webhook secrets and key hashes live here: owner-only file and side files (decision “Owner-only data folder”).
    privateSqliteFile(options.dbPath);
    this.db = new Database(options.dbPath);
    this.db.pragma('journal_mode = WAL');
    privateSqliteFile(options.dbPath);
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    migrate(this.db);
    cachePreparedStatements(this.db);
    this.clock = new EmulatorClock(this.db, options.time);
  }

  onCommit(listener: CommitListener): void {
    this.listeners.push(listener);
  }

  read<T>(fn: (reader: Reader) => T): T {
    return fn({ db: this.db, now: this.clock.now() });
  }

  /**
   * Runs fn in BEGIN IMMEDIATE: the write lock is taken before the first read, so two requests (or two
   * processes on one file) cannot both see the same remainder and over-apply it. Events emitted inside are
   * outbox rows of the same transaction; listeners hear of them only after commit.
   */
  write<T>(fn: (tx: Tx) => T): T {
    const events: EventRow[] = [];
    const run = this.db.transaction(() => {
      const now = this.clock.now();
      const tx: Tx = {
        db: this.db,
        now,
        seq: () => this.nextSeq(),
        emit: (event) => {
          const row: EventRow = {
            id: newEventId(),
            org_id: event.orgId,
            category: event.category,
            associated_object_type: event.objectType,
            associated_object_id: event.objectId,
            created_at: now.toISOString(),
            dispatched_at: null,
            seq: this.nextSeq(),
          };
          insertRow(this.db, 'events', row);
          events.push(row);
          return row;
        },
      };
      return fn(tx);
    });
    const result = run.immediate();
    if (events.length > 0) for (const listener of this.listeners) listener(events);
    return result;
  }

  close(): void {
    this.db.close();
  }

  private nextSeq(): number {
    const row = this.db
      .prepare(
        `INSERT INTO meta (key, value) VALUES ('seq', '1')
         ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING value`,
      )
      .get() as { value: string | number };
    return Number(row.value);
  }
}

export function openStore(options: StoreOptions): Store {
  return new Store(options);
}
