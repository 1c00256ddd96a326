import { privateSqliteFile } from '@booksync/private-files';
import DatabaseConstructor, { type Database, type Statement, type Transaction } from 'better-sqlite3';
import type { Logger } from '../logging/logger.js';
import { silentLogger } from '../logging/logger.js';
import { chartBalances } from './account-balances.js';
import { type BusyRetryPolicy, defaultBusyRetryPolicy, withBusyRetry } from './busy-retry.js';
import { type AccountName, Accounts, chartOfAccounts } from './chart-of-accounts.js';
import { contentHash } from './content-hash.js';
import { DerivedLedgerReads, entryPageSize } from './derived-ledger-reads.js';
import {
  type BookedEntry,
  type EntryLine,
  type EntryLinks,
  type LedgerEntryInput,
  type LinkField,
  type PostResult,
  validateEntry,
} from './entry.js';
import { reversalKey } from './entry-key.js';
import {
  accountSumsQuery,
  entryColumns,
  entryFromRow,
  entryInsertColumns,
  entryValues,
  entryWithReversal,
  lineFromRow,
  linkColumns,
  linkFilter,
  linkWhere,
  type StoredEntryRow,
} from './entry-rows.js';
import type {
  AccountBalance,
  BooksClosing,
  BooksOpening,
  LedgerPort,
  OpenItem,
  ReverseOptions,
} from './ledger-port.js';
import { migrate } from './migrations.js';
import {
  booksOpeningOf,
  closingToWrite,
  inOpenPeriod,
  newlyBooked,
  type OpeningStep,
  openingStepToWrite,
  repeatedPost,
  reversalEntry,
  reversibleOriginal,
} from './posting-rules.js';
import {
  sameWriteOff,
  validateWriteOff,
  type WriteOff,
  WriteOffConflictError,
  type WriteOffInput,
  type WriteOffRecorded,
  writeOffFromRow,
} from './write-offs.js';

export interface EmbeddedLedgerOptions {
  /** A file path, or ':memory:' (the default). */
  path?: string;
  logger?: Logger;
  /** How long SQLite itself waits on a lock before reporting SQLITE_BUSY; blocks the thread. */
  busyTimeoutMs?: number;
  busyRetry?: BusyRetryPolicy;
  /**
   * 'full' (default) fsyncs every commit; 'normal' is faster in WAL mode but the last commits before a
   * power loss may be lost (never corrupted). Reconciliation repairs such a gap; pick per deployment.
   */
  synchronous?: 'full' | 'normal';
  /** Clock for created_at; tests pin it. */
  now?: () => Date;
}

interface EntryRow extends StoredEntryRow {
  id: number;
}

interface LineRow {
  entry_id: number;
  account: string;
  amount_cents: number;
  memo: string | null;
}

const OPEN_BUSY_TIMEOUT_MS = 5_000;

/**
 * The embedded double-entry ledger: SQLite through better-sqlite3 (synchronous; the port's promises
 * resolve after the local write). One writer transaction per post, BEGIN IMMEDIATE so the key check and the
 * insert cannot interleave with another writer.
 */
export class EmbeddedLedger extends DerivedLedgerReads implements LedgerPort {
  readonly #db: Database;
  readonly #log: Logger;
  readonly #retry: BusyRetryPolicy;
  readonly #now: () => Date;
  readonly #byKey: Statement<[string], EntryRow>;
  readonly #linesOf: Statement<[number], LineRow>;
  readonly #insertEntry: Statement;
  readonly #insertLine: Statement;
  readonly #balances: Statement<[], { account: string; debit: number; credit: number }>;
  readonly #openItems: Record<'receivable' | 'payable', Statement<[], OpenItem>>;
  readonly #page: Statement<[number, number], EntryRow>;
  readonly #pageLines: Statement<[number, number], LineRow>;
  readonly #filtered = new Map<
    string,
    { entries: Statement<unknown[], EntryRow>; lines: Statement<unknown[], LineRow> }
  >();
  readonly #postTx: Transaction<(entry: LedgerEntryInput, reverses: string | null) => PostResult>;
  readonly #reverseTx: Transaction<(key: string, options: ReverseOptions) => PostResult>;
  readonly #postManyTx: Transaction<(entries: LedgerEntryInput[]) => PostResult[]>;
  readonly #readTx: Transaction<(query: () => unknown) => unknown>;
  readonly #openingSteps: Statement<[], { step: string; opens_on: string }>;
  readonly #insertOpeningStep: Statement<[string, string, string]>;
  readonly #closings: Statement<[], { through: string; at: string; reason: string; forced: number }>;
  readonly #closedThrough: Statement<[], { through: string | null }>;
  readonly #insertClosing: Statement<[string, string, string, number]>;

  static open(options: EmbeddedLedgerOptions = {}): EmbeddedLedger {
    return new EmbeddedLedger(options);
  }

  private constructor(options: EmbeddedLedgerOptions) {
    super();
    const path = options.path ?? ':memory:';
    this.#log = (options.logger ?? silentLogger).child({ component: 'embedded-ledger' });
    this.#retry = options.busyRetry ?? defaultBusyRetryPolicy;
    this.#now = options.now ?? (() => new Date());
    // The books are the business's: owner-only file and side files (decision “Owner-only data folder”).
    privateSqliteFile(path);
    // Opening (WAL switch, migrations) waits longer for a lock than posts do: it runs once, at startup,
    // maybe while another worker process is writing.
    const db = new DatabaseConstructor(path, { timeout: OPEN_BUSY_TIMEOUT_MS });
    this.#db = db;
    try {
      if (path !== ':memory:') db.pragma('journal_mode = WAL');
      privateSqliteFile(path);
      db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
      db.pragma('foreign_keys = ON');
      migrate(db);
      const addAccount = db.prepare('INSERT OR IGNORE INTO accounts (name, title, type) VALUES (?, ?, ?)');
      db.transaction(() => {
        for (const a of chartOfAccounts) addAccount.run(a.name, a.title, a.type);
      }).immediate();
      db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 100}`);
    } catch (error) {
      db.close();
      throw error;
    }

    this.#byKey = db.prepare(`SELECT ${entryColumns} FROM ${entryWithReversal} WHERE e.key = ?`);
    this.#linesOf = db.prepare(
      'SELECT entry_id, account, amount_cents, memo FROM lines WHERE entry_id = ? ORDER BY line_no',
    );
    this.#insertEntry = db.prepare(
      `INSERT INTO entries (${entryInsertColumns.join(', ')})
       VALUES (${entryInsertColumns.map(() => '?').join(', ')})`,
    );
    this.#insertLine = db.prepare(
      `INSERT INTO lines (entry_id, line_no, account, amount_cents, running_cents, memo)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.#balances = db.prepare(accountSumsQuery);
    // The document is the entry's link (payment link / bill); its counterparty is whatever entry of that
    // document names one (the invoice or bill entry does), so entries booked without it still count.
    const openItems = (account: AccountName, document: string, counterparty: string, sign: 1 | -1) =>
      db.prepare<[], OpenItem>(
        `SELECT e.${document} AS documentId,
           (SELECT x.${counterparty} FROM entries x
             WHERE x.${document} = e.${document} AND x.${counterparty} IS NOT NULL LIMIT 1) AS counterpartyId,
           ${sign} * sum(l.amount_cents) AS openCents
         FROM lines l JOIN entries e ON e.id = l.entry_id
         WHERE l.account = '${account}'
         GROUP BY e.${document} ORDER BY e.${document}`,
      );
    this.#openItems = {
      receivable: openItems(Accounts.AccountsReceivable, 'payment_link_id', 'customer_id', 1),
      payable: openItems(Accounts.AccountsPayable, 'bill_id', 'vendor_id', -1),
    };
    this.#page = db.prepare(
      `SELECT ${entryColumns} FROM ${entryWithReversal} WHERE e.id > ? ORDER BY e.id LIMIT ?`,
    );
    this.#pageLines = db.prepare(
      'SELECT entry_id, account, amount_cents, memo FROM lines WHERE entry_id > ? AND entry_id <= ? ORDER BY entry_id, line_no',
    );
    this.#postTx = db.transaction((entry, reverses) => this.#postInTransaction(entry, reverses));
    this.#reverseTx = db.transaction((key, options) => this.#reverseInTransaction(key, options));
    this.#postManyTx = db.transaction((entries) => entries.map((e) => this.#postInTransaction(e, null)));
    this.#readTx = db.transaction((query) => query());
    this.#openingSteps = db.prepare('SELECT step, opens_on FROM books_opening');
    this.#insertOpeningStep = db.prepare('INSERT INTO books_opening (step, opens_on, at) VALUES (?, ?, ?)');
    this.#closings = db.prepare('SELECT through, at, reason, forced FROM books_closings ORDER BY through');
    this.#closedThrough = db.prepare('SELECT max(through) AS through FROM books_closings');
    this.#insertClosing = db.prepare(
      'INSERT INTO books_closings (through, at, reason, forced) VALUES (?, ?, ?, ?)',
    );
  }

  /** The raw handle, for operations tooling and tests (the schema's triggers still guard it). */
  get database(): Database {
    return this.#db;
  }

  close(): void {
    this.#db.close();
  }

  async post(entry: LedgerEntryInput): Promise<PostResult> {
    const valid = validateEntry(entry);
    return withBusyRetry(() => this.#postTx.immediate(valid, null), this.#retry, this.#onBusy(entry.key));
  }

  /**
   * Posts several entries in one transaction, all or nothing (one fsync instead of one per entry): for
   * bulk backfills. Each entry follows post()'s rules; any conflict or invalid entry writes none of them.
   */
  async postMany(entries: readonly LedgerEntryInput[]): Promise<PostResult[]> {
    const valid = entries.map((e) => validateEntry(e));
    return withBusyRetry(() => this.#postManyTx.immediate(valid), this.#retry, this.#onBusy('(batch)'));
  }

  async reverse(key: string, options: ReverseOptions): Promise<PostResult> {
    return withBusyRetry(() => this.#reverseTx.immediate(key, options), this.#retry, this.#onBusy(key));
  }

  async get(key: string): Promise<BookedEntry | null> {
    return withBusyRetry(() => this.#read(() => this.#load(key)), this.#retry);
  }

  async getMany(keys: readonly string[]): Promise<Map<string, BookedEntry>> {
    if (keys.length === 0) return new Map();
    // The keys as one JSON array parameter: one statement for any number of them.
    const statements = this.#statementsWhere('(keys)', 'e.key IN (SELECT value FROM json_each(?))');
    const list = JSON.stringify([...new Set(keys)]);
    const entries = await withBusyRetry(
      () => this.#read(() => this.#hydrate(statements.entries.all(list), statements.lines.all(list))),
      this.#retry,
    );
    return new Map(entries.map((e) => [e.key, e]));
  }

  async entriesFor(filter: EntryLinks): Promise<BookedEntry[]> {
    const { fields, values } = linkFilter(filter);
    const statements = this.#filteredStatements(fields);
    return withBusyRetry(
      () =>
        this.#read(() => this.#hydrate(statements.entries.all(...values), statements.lines.all(...values))),
      this.#retry,
    );
  }

  async entriesWithLink(field: LinkField): Promise<BookedEntry[]> {
    const statements = this.#withLinkStatements(field);
    return withBusyRetry(
      () => this.#read(() => this.#hydrate(statements.entries.all(), statements.lines.all())),
      this.#retry,
    );
  }

  /**
   * Pages by id. SQLite has one writer at a time and gives ids in commit order, so what the first page did
   * not see can only follow the last page: the pages read the books as they were, plus entries booked meanwhile.
   */
  async *entries(options: { pageSize?: number } = {}): AsyncIterable<BookedEntry> {
    const pageSize = entryPageSize(options);
    for (let after = 0; ; ) {
      const page = await withBusyRetry(
        () =>
          this.#read(() => {
            const rows = this.#page.all(after, pageSize);
            const last = rows.at(-1)?.id ?? after;
            return this.#hydrate(rows, this.#pageLines.all(after, last));
          }),
        this.#retry,
      );
      yield* page;
      if (page.length < pageSize) return;
      after = page.at(-1)!.id;
    }
  }

  async balances(): Promise<AccountBalance[]> {
    const rows = await withBusyRetry(() => this.#balances.all(), this.#retry);
    return chartBalances(rows);
  }

  async openItems(side: 'receivable' | 'payable'): Promise<OpenItem[]> {
    return withBusyRetry(() => this.#openItems[side].all(), this.#retry);
  }

  async booksOpening(): Promise<BooksOpening | null> {
    return booksOpeningOf(await withBusyRetry(() => this.#openingSteps.all(), this.#retry));
  }

  async booksClosings(): Promise<BooksClosing[]> {
    const rows = await withBusyRetry(() => this.#closings.all(), this.#retry);
    return rows.map((r) => ({ through: r.through, at: r.at, reason: r.reason, forced: r.forced === 1 }));
  }

  async closeBooks(
    through: string,
    record: { reason: string; forced: boolean },
  ): Promise<{ closedThrough: string; created: boolean }> {
    const created = await withBusyRetry(
      () =>
        this.#db
          .transaction(() => {
            if (!closingToWrite(this.#closedThrough.get()?.through ?? null, through, record.reason))
              return false;
            this.#insertClosing.run(through, this.#now().toISOString(), record.reason, record.forced ? 1 : 0);
            return true;
          })
          .immediate(),
      this.#retry,
    );
    if (created) this.#log.info({ through, forced: record.forced, reason: record.reason }, 'books closed');
    return { closedThrough: through, created };
  }

  async recordWriteOff(input: WriteOffInput): Promise<WriteOffRecorded> {
    const valid = validateWriteOff(input);
    const recorded = await withBusyRetry(
      () =>
        this.#db
          .transaction((): WriteOffRecorded => {
            const existing = this.#writeOff(valid.id);
            if (existing) {
              if (!sameWriteOff(existing, valid)) throw new WriteOffConflictError(valid.id);
              return { writeOff: existing, created: false };
            }
            this.#db
              .prepare(
                'INSERT INTO write_offs (id, payment_link_id, amount_cents, reason, recorded_at) VALUES (?, ?, ?, ?, ?)',
              )
              .run(valid.id, valid.paymentLinkId, valid.amountCents, valid.reason, this.#now().toISOString());
            return { writeOff: this.#writeOff(valid.id) as WriteOff, created: true };
          })
          .immediate(),
      this.#retry,
    );
    if (recorded.created) this.#log.info({ ...valid }, 'write-off recorded');
    return recorded;
  }

  async withdrawWriteOff(id: string): Promise<WriteOff | null> {
    return withBusyRetry(
      () =>
        this.#db
          .transaction((): WriteOff | null => {
            const existing = this.#writeOff(id);
            if (!existing || existing.withdrawnAt !== null) return existing;
            this.#db
              .prepare('UPDATE write_offs SET withdrawn_at = ? WHERE id = ?')
              .run(this.#now().toISOString(), id);
            return this.#writeOff(id);
          })
          .immediate(),
      this.#retry,
    );
  }

  async writeOffsFor(paymentLinkId: string): Promise<WriteOff[]> {
    const rows = await withBusyRetry(
      () =>
        this.#db
          .prepare('SELECT * FROM write_offs WHERE payment_link_id = ? ORDER BY recorded_at, rowid')
          .all(paymentLinkId) as Parameters<typeof writeOffFromRow>[0][],
      this.#retry,
    );
    return rows.map(writeOffFromRow);
  }

  #writeOff(id: string): WriteOff | null {
    const row = this.#db.prepare('SELECT * FROM write_offs WHERE id = ?').get(id) as
      | Parameters<typeof writeOffFromRow>[0]
      | undefined;
    return row ? writeOffFromRow(row) : null;
  }

  protected writeOpeningStep(step: OpeningStep, date: string): Promise<boolean> {
    return withBusyRetry(
      () =>
        this.#db
          .transaction(() => {
            if (!openingStepToWrite(this.#openingSteps.all(), step, date)) return false;
            this.#insertOpeningStep.run(step, date, this.#now().toISOString());
            return true;
          })
          .immediate(),
      this.#retry,
    );
  }

  #postInTransaction(posted: LedgerEntryInput, reverses: string | null): PostResult {
    const hash = contentHash({ ...posted, reverses });
    const existing = this.#load(posted.key);
    if (existing) {
      return repeatedPost(existing, posted.key, hash, {
        onConflict: () =>
          this.#log.warn({ key: posted.key }, 'ledger conflict: same key, different contents'),
      });
    }
    const { entry, economicDate } = inOpenPeriod(posted, this.#closedThrough.get()?.through ?? null);
    const createdAt = this.#now().toISOString();
    const id = Number(
      this.#insertEntry.run(...entryValues(entry, { reverses, contentHash: hash, createdAt, economicDate }))
        .lastInsertRowid,
    );
    let running = 0;
    entry.lines.forEach((line, i) => {
      running += line.amountCents;
      this.#insertLine.run(id, i + 1, line.account, line.amountCents, running, line.memo ?? null);
    });
    this.#log.debug({ key: entry.key, id }, 'ledger entry posted');
    return {
      entry: newlyBooked(entry, { id, reverses, contentHash: hash, createdAt, economicDate }),
      created: true,
    };
  }

  #reverseInTransaction(key: string, options: ReverseOptions): PostResult {
    const original = reversibleOriginal(key, this.#load(key));
    const existing = this.#load(reversalKey(key));
    if (existing) return { entry: existing, created: false };
    const result = this.#postInTransaction(reversalEntry(original, key, options), key);
    this.#log.info({ key, reason: options.reason }, 'ledger entry reversed');
    return result;
  }

  #load(key: string): BookedEntry | null {
    const row = this.#byKey.get(key);
    if (!row) return null;
    return this.#hydrate([row], this.#linesOf.all(row.id))[0] ?? null;
  }

  #hydrate(rows: EntryRow[], lineRows: LineRow[]): BookedEntry[] {
    const linesByEntry = new Map<number, EntryLine[]>();
    for (const l of lineRows) {
      let list = linesByEntry.get(l.entry_id);
      if (!list) {
        list = [];
        linesByEntry.set(l.entry_id, list);
      }
      list.push(lineFromRow(l.account, l.amount_cents, l.memo));
    }
    return rows.map((row) => entryFromRow(row, row.id, linesByEntry.get(row.id) ?? []));
  }

  /** Through the field's partial index (`entries_by_<field>`, WHERE <column> IS NOT NULL). */
  #withLinkStatements(field: LinkField) {
    return this.#statementsWhere(`with:${field}`, `e.${linkColumns[field]} IS NOT NULL`);
  }

  #filteredStatements(fields: LinkField[]) {
    const where = linkWhere(fields, () => '?');
    return this.#statementsWhere(fields.join(','), where);
  }

  /** The entries and their lines WHERE `where`, prepared once per signature. */
  #statementsWhere(signature: string, where: string) {
    let statements = this.#filtered.get(signature);
    if (!statements) {
      statements = {
        entries: this.#db.prepare(
          `SELECT ${entryColumns} FROM ${entryWithReversal} WHERE ${where} ORDER BY e.id`,
        ),
        lines: this.#db.prepare(
          `SELECT l.entry_id, l.account, l.amount_cents, l.memo FROM lines l JOIN entries e ON e.id = l.entry_id
           WHERE ${where} ORDER BY l.entry_id, l.line_no`,
        ),
      };
      this.#filtered.set(signature, statements);
    }
    return statements;
  }

  /** Several queries, one snapshot: entries and their lines are read in one (deferred) read transaction. */
  #read<T>(query: () => T): T {
    return this.#readTx(query) as T;
  }

  #onBusy(key: string) {
    return (attempt: number, delayMs: number) =>
      this.#log.warn({ key, attempt, delayMs: Math.round(delayMs) }, 'ledger database busy; retrying');
  }
}
