import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';
import { silentLogger } from '../logging/logger.js';
import { chartBalances, safeTotal } from './account-balances.js';
import type { BusyRetryPolicy } from './busy-retry.js';
import { Accounts, chartOfAccounts } from './chart-of-accounts.js';
import { contentHash } from './content-hash.js';
import { DerivedLedgerReads, entryPageSize } from './derived-ledger-reads.js';
import {
  type BookedEntry,
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
import { LedgerBusyError } from './errors.js';
import type {
  AccountBalance,
  BooksClosing,
  BooksOpening,
  LedgerPort,
  OpenItem,
  ReverseOptions,
} from './ledger-port.js';
import { inTransaction } from './pg-transaction.js';
import { migratePostgres } from './postgres-migrations.js';
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

// The ledger on PostgreSQL: the same port and the same observable behaviour as the embedded (SQLite) ledger,
// for several worker processes on several machines. The guarantees live in the database
// (postgres-migrations.ts): unique keys, one reversal per entry, balance checked at COMMIT, immutability.
//
// A post is one READ COMMITTED transaction: read the key; if absent, INSERT ... ON CONFLICT DO NOTHING. When
// another process inserted the same key meanwhile, the insert waits for that transaction and then inserts
// nothing; the key is read again (a new statement sees the other's commit) and compared like any repeat.
// So concurrent posts of one key book it once: the others answer {created: false} for the same contents, or
// LedgerConflictError for other contents. Deadlocks and serialization failures (a batch meeting another
// batch's keys in another order) and lock waits beyond lockTimeoutMs are retried with a bounded backoff,
// then LedgerBusyError.

export interface PostgresLedgerOptions {
  /** postgres://user:password@host:port/database (the password is never logged). */
  url: string;
  logger?: Logger;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /**
   * How long a statement waits for a row or table lock another transaction holds before giving up (then
   * retried like a deadlock, and LedgerBusyError when the retries run out). Default 5 s.
   */
  lockTimeoutMs?: number;
  busyRetry?: BusyRetryPolicy;
  /** Clock for created_at; tests pin it. */
  now?: () => Date;
}

const retryableCodes = new Set(['40001', '40P01', '55P03']);
const defaultRetry: BusyRetryPolicy = { maxAttempts: 8, initialDelayMs: 10, maxDelayMs: 500 };

interface EntryRow extends StoredEntryRow {
  id: string;
  lines: { account: string; amount: number; memo: string | null }[] | null;
}

// One statement per read: entries, their lines (as JSON, in line order) and who reverses them, one snapshot.
const entrySelect = `SELECT ${entryColumns},
  (SELECT json_agg(json_build_object('account', l.account, 'amount', l.amount_cents, 'memo', l.memo)
     ORDER BY l.line_no) FROM lines l WHERE l.entry_id = e.id) AS lines
  FROM ${entryWithReversal}`;

/** Removes the password of a postgres:// url, for logs and error messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

/** Error text without the url's password, whatever the driver put in it. */
function redactError(error: unknown, url: string): Error {
  const password = (() => {
    try {
      return decodeURIComponent(new URL(url).password);
    } catch {
      return '';
    }
  })();
  const message = error instanceof Error ? error.message : String(error);
  const clean = password ? message.split(password).join('***') : message;
  return new Error(`ledger database ${redactUrl(url)}: ${clean}`);
}

export class PostgresLedger extends DerivedLedgerReads implements LedgerPort {
  readonly #pool: pg.Pool;
  readonly #log: Logger;
  readonly #retry: BusyRetryPolicy;
  readonly #now: () => Date;

  /** Connects, migrates (under an advisory lock: safe with several processes starting at once), seeds the chart. */
  static async open(options: PostgresLedgerOptions): Promise<PostgresLedger> {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      application_name: 'booksync-ledger',
      lock_timeout: options.lockTimeoutMs ?? 5_000,
      // Idle connections do not keep a finished command (or a failed start-up) from exiting.
      allowExitOnIdle: true,
    });
    // An idle connection the server drops must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migratePostgres(client);
        const values = chartOfAccounts.map((_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3})`);
        await client.query(
          `INSERT INTO accounts (name, title, type) VALUES ${values.join(', ')} ON CONFLICT (name) DO NOTHING`,
          chartOfAccounts.flatMap((a) => [a.name, a.title, a.type]),
        );
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw redactError(error, options.url);
    }
    return new PostgresLedger(pool, options);
  }

  private constructor(pool: pg.Pool, options: PostgresLedgerOptions) {
    super();
    this.#pool = pool;
    this.#log = (options.logger ?? silentLogger).child({ component: 'postgres-ledger' });
    this.#retry = options.busyRetry ?? defaultRetry;
    this.#now = options.now ?? (() => new Date());
  }

  /** The connection pool, for the target index and for operations tooling and tests (the triggers still guard it). */
  get pool(): pg.Pool {
    return this.#pool;
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  async post(entry: LedgerEntryInput): Promise<PostResult> {
    const valid = validateEntry(entry);
    return this.#transaction(entry.key, (client) => this.#postIn(client, valid, null));
  }

  /**
   * Posts several entries in one transaction, all or nothing: for bulk backfills. Each entry follows
   * post()'s rules; any conflict or invalid entry writes none of them.
   */
  async postMany(entries: readonly LedgerEntryInput[]): Promise<PostResult[]> {
    const valid = entries.map((e) => validateEntry(e));
    return this.#transaction('(batch)', async (client) => {
      const results: PostResult[] = [];
      for (const entry of valid) results.push(await this.#postIn(client, entry, null));
      return results;
    });
  }

  async reverse(key: string, options: ReverseOptions): Promise<PostResult> {
    return this.#transaction(key, async (client) => {
      const original = reversibleOriginal(key, await this.#load(client, key));
      const existing = await this.#load(client, reversalKey(key));
      if (existing) return { entry: existing, created: false };
      const reversal = reversalEntry(original, key, options);
      // Another process may be reversing the same key now: the unique key decides, and a loser whose
      // reason or date differ gets the winner's reversal, as a second call of reverse() would.
      const result = await this.#postIn(client, reversal, key, true);
      if (result.created) this.#log.info({ key, reason: options.reason }, 'ledger entry reversed');
      return result;
    });
  }

  async get(key: string): Promise<BookedEntry | null> {
    return this.#load(this.#pool, key);
  }

  async getMany(keys: readonly string[]): Promise<Map<string, BookedEntry>> {
    if (keys.length === 0) return new Map();
    const { rows } = await this.#pool.query<EntryRow>(`${entrySelect} WHERE e.key = ANY($1::text[])`, [
      [...new Set(keys)],
    ]);
    return new Map(rows.map((row) => [row.key, hydrate(row)]));
  }

  async entriesFor(filter: EntryLinks): Promise<BookedEntry[]> {
    const { fields, values } = linkFilter(filter);
    const where = linkWhere(fields, (i) => `$${i + 1}`);
    const { rows } = await this.#pool.query<EntryRow>(`${entrySelect} WHERE ${where} ORDER BY e.id`, values);
    return rows.map(hydrate);
  }

  async entriesWithLink(field: LinkField): Promise<BookedEntry[]> {
    const { rows } = await this.#pool.query<EntryRow>(
      `${entrySelect} WHERE e.${linkColumns[field]} IS NOT NULL ORDER BY e.id`,
    );
    return rows.map(hydrate);
  }

  /**
   * A cursor in one REPEATABLE READ transaction: the pages are one snapshot of the books. (Ids come from a
   * sequence before commit, so paging by id could miss an entry committed late under a lower id.)
   */
  async *entries(options: { pageSize?: number } = {}): AsyncIterable<BookedEntry> {
    const pageSize = entryPageSize(options);
    const client = await this.#pool.connect();
    let inTransaction = false;
    let broken = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      inTransaction = true;
      await client.query(`DECLARE booksync_entries NO SCROLL CURSOR FOR ${entrySelect} ORDER BY e.id`);
      for (;;) {
        const { rows } = await client.query<EntryRow>(`FETCH ${pageSize} FROM booksync_entries`);
        yield* rows.map(hydrate);
        if (rows.length < pageSize) break;
      }
      await client.query('COMMIT');
      inTransaction = false;
    } catch (error) {
      broken = true;
      throw error;
    } finally {
      // A reader that stopped early (a break in its loop) leaves the snapshot open: end it.
      if (inTransaction && !broken) await client.query('ROLLBACK').catch(() => undefined);
      client.release(broken);
    }
  }

  async balances(): Promise<AccountBalance[]> {
    const { rows } = await this.#pool.query<{ account: string; debit: string; credit: string }>(
      accountSumsQuery,
    );
    return chartBalances(rows);
  }

  async booksOpening(): Promise<BooksOpening | null> {
    const { rows } = await this.#pool.query<{ step: string; opens_on: string }>(
      'SELECT step, opens_on FROM books_opening',
    );
    return booksOpeningOf(rows);
  }

  async booksClosings(): Promise<BooksClosing[]> {
    const { rows } = await this.#pool.query<BooksClosing>(
      'SELECT through, at, reason, forced FROM books_closings ORDER BY through',
    );
    return rows.map((r) => ({ through: r.through, at: r.at, reason: r.reason, forced: r.forced }));
  }

  async closeBooks(
    through: string,
    record: { reason: string; forced: boolean },
  ): Promise<{ closedThrough: string; created: boolean }> {
    const created = await this.#transaction(`(close through ${through})`, async (client) => {
      // Waits for the posts in flight (SHARE) and holds new ones until the closing commits.
      await client.query('LOCK TABLE books_closings IN SHARE ROW EXCLUSIVE MODE');
      const { rows } = await client.query<{ through: string | null }>(
        'SELECT max(through) AS through FROM books_closings',
      );
      if (!closingToWrite(rows[0]?.through ?? null, through, record.reason)) return false;
      await client.query('INSERT INTO books_closings (through, at, reason, forced) VALUES ($1, $2, $3, $4)', [
        through,
        this.#now().toISOString(),
        record.reason,
        record.forced,
      ]);
      return true;
    });
    if (created) this.#log.info({ through, forced: record.forced, reason: record.reason }, 'books closed');
    return { closedThrough: through, created };
  }

  async recordWriteOff(input: WriteOffInput): Promise<WriteOffRecorded> {
    const valid = validateWriteOff(input);
    const recorded = await this.#transaction(`(write-off ${valid.id})`, async (client) => {
      // Two requests of one write-off at once: the second waits for the first's row, then finds it.
      const inserted = await client.query<WriteOffRow>(
        `INSERT INTO write_offs (id, payment_link_id, amount_cents, reason, recorded_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING *`,
        [valid.id, valid.paymentLinkId, valid.amountCents, valid.reason, this.#now().toISOString()],
      );
      if (inserted.rows[0]) return { writeOff: writeOffFromRow(inserted.rows[0]), created: true };
      const existing = await this.#writeOff(client, valid.id);
      if (!existing || !sameWriteOff(existing, valid)) throw new WriteOffConflictError(valid.id);
      return { writeOff: existing, created: false };
    });
    if (recorded.created) this.#log.info({ ...valid }, 'write-off recorded');
    return recorded;
  }

  async withdrawWriteOff(id: string): Promise<WriteOff | null> {
    return this.#transaction(`(write-off ${id})`, async (client) => {
      const { rows } = await client.query<WriteOffRow>(
        'UPDATE write_offs SET withdrawn_at = $2 WHERE id = $1 AND withdrawn_at IS NULL RETURNING *',
        [id, this.#now().toISOString()],
      );
      return rows[0] ? writeOffFromRow(rows[0]) : this.#writeOff(client, id);
    });
  }

  async writeOffsFor(paymentLinkId: string): Promise<WriteOff[]> {
    const { rows } = await this.#pool.query<WriteOffRow>(
      'SELECT * FROM write_offs WHERE payment_link_id = $1 ORDER BY recorded_at, id',
      [paymentLinkId],
    );
    return rows.map(writeOffFromRow);
  }

  async #writeOff(client: pg.PoolClient, id: string): Promise<WriteOff | null> {
    const { rows } = await client.query<WriteOffRow>('SELECT * FROM write_offs WHERE id = $1', [id]);
    return rows[0] ? writeOffFromRow(rows[0]) : null;
  }

  protected writeOpeningStep(step: OpeningStep, date: string): Promise<boolean> {
    return this.#transaction(`(books opening ${step})`, async (client) => {
      // One writer of the opening at a time; the primary key stops a second row of a step anyway.
      await client.query('LOCK TABLE books_opening IN SHARE ROW EXCLUSIVE MODE');
      const { rows } = await client.query<{ step: string; opens_on: string }>(
        'SELECT step, opens_on FROM books_opening',
      );
      if (!openingStepToWrite(rows, step, date)) return false;
      await client.query('INSERT INTO books_opening (step, opens_on, at) VALUES ($1, $2, $3)', [
        step,
        date,
        this.#now().toISOString(),
      ]);
      return true;
    });
  }

  async openItems(side: 'receivable' | 'payable'): Promise<OpenItem[]> {
    const [account, document, counterparty, sign] =
      side === 'receivable'
        ? [Accounts.AccountsReceivable, 'payment_link_id', 'customer_id', 1]
        : [Accounts.AccountsPayable, 'bill_id', 'vendor_id', -1];
    // Ordered as SQLite orders them: no document first, then by code unit (collation "C").
    const { rows } = await this.#pool.query<{
      documentId: string | null;
      counterpartyId: string | null;
      openCents: string;
    }>(
      `SELECT e.${document} AS "documentId",
         (SELECT x.${counterparty} FROM entries x
           WHERE x.${document} = e.${document} AND x.${counterparty} IS NOT NULL
           ORDER BY x.id LIMIT 1) AS "counterpartyId",
         ${sign} * sum(l.amount_cents) AS "openCents"
       FROM lines l JOIN entries e ON e.id = l.entry_id
       WHERE l.account = $1
       GROUP BY e.${document} ORDER BY e.${document} COLLATE "C" NULLS FIRST`,
      [account],
    );
    return rows.map((r) => ({
      documentId: r.documentId,
      counterpartyId: r.counterpartyId,
      openCents: safeTotal(r.openCents),
    }));
  }

  async #postIn(
    client: pg.PoolClient,
    posted: LedgerEntryInput,
    reverses: string | null,
    reversal = false,
  ): Promise<PostResult> {
    const hash = contentHash({ ...posted, reverses });
    const existing = await this.#load(client, posted.key);
    if (existing) return this.#repeat(existing, posted.key, hash, reversal);
    // SHARE: posts go on together, a closing (SHARE ROW EXCLUSIVE) waits for them and they for it, so the
    // day read here is the one the database's trigger checks at the insert.
    await client.query('LOCK TABLE books_closings IN SHARE MODE');
    const { rows: closed } = await client.query<{ through: string | null }>(
      'SELECT max(through) AS through FROM books_closings',
    );
    const { entry, economicDate } = inOpenPeriod(posted, closed[0]?.through ?? null);
    const createdAt = this.#now().toISOString();
    const columns = entryInsertColumns;
    const values = entryValues(entry, { reverses, contentHash: hash, createdAt, economicDate });
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO entries (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT DO NOTHING RETURNING id`,
      values,
    );
    const idText = inserted.rows[0]?.id;
    if (idText === undefined) {
      // Another process booked the key (or, for a reversal, reversed the entry) and committed meanwhile.
      const winner = await this.#load(client, posted.key);
      if (!winner) throw new Error(`ledger: ${posted.key} was neither inserted nor found`);
      return this.#repeat(winner, posted.key, hash, reversal);
    }
    const id = safeTotal(idText);
    const lineValues = entry.lines.map(
      (_, i) => `($1, ${i + 1}, $${i * 3 + 2}, $${i * 3 + 3}, $${i * 3 + 4})`,
    );
    await client.query(
      `INSERT INTO lines (entry_id, line_no, account, amount_cents, memo) VALUES ${lineValues.join(', ')}`,
      [id, ...entry.lines.flatMap((l) => [l.account, l.amountCents, l.memo ?? null])],
    );
    this.#log.debug({ key: entry.key, id }, 'ledger entry posted');
    return {
      entry: newlyBooked(entry, { id, reverses, contentHash: hash, createdAt, economicDate }),
      created: true,
    };
  }

  #repeat(existing: BookedEntry, key: string, hash: string, reversal: boolean): PostResult {
    return repeatedPost(existing, key, hash, {
      anyContents: reversal,
      onConflict: () => this.#log.warn({ key }, 'ledger conflict: same key, different contents'),
    });
  }

  async #load(client: pg.Pool | pg.PoolClient, key: string): Promise<BookedEntry | null> {
    const { rows } = await client.query<EntryRow>(`${entrySelect} WHERE e.key = $1`, [key]);
    return rows[0] ? hydrate(rows[0]) : null;
  }

  /** One transaction on one connection; deadlocks and serialization failures retried, bounded. */
  async #transaction<T>(key: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let delay = this.#retry.initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await inTransaction(this.#pool, 'BEGIN', work);
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        if (typeof code !== 'string' || !retryableCodes.has(code)) throw error;
        if (attempt >= this.#retry.maxAttempts) throw new LedgerBusyError(attempt, { cause: error });
        const wait = Math.min(this.#retry.maxDelayMs, delay) * (1 + Math.random() * 0.5);
        this.#log.warn(
          { key, attempt, delayMs: Math.round(wait), code },
          'ledger database contention; retrying',
        );
        await sleep(wait);
        delay *= 2;
      }
    }
  }
}

type WriteOffRow = Parameters<typeof writeOffFromRow>[0];

function hydrate(row: EntryRow): BookedEntry {
  const lines = (row.lines ?? []).map((l) => lineFromRow(l.account, safeTotal(l.amount), l.memo));
  return entryFromRow(row, safeTotal(row.id), lines);
}
