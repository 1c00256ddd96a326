import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { LedgerBusyError, LedgerConflictError } from '../../src/ledger/errors.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { postgresMigrations } from '../../src/ledger/postgres-migrations.js';
import { openLedgerStore } from '../../src/runtime/ledger-store.js';
import { twoLine } from './fixtures.js';
import { postgresStore } from './ledger-stores.js';

// The guarantees of the ledger on PostgreSQL are the database's own: raw SQL (a buggy writer, a person with
// psql) meets the same refusals as the code. Counterpart of ledger-database.test.ts (SQLite).

const postgres = postgresStore();

let url: string;
let ledger: PostgresLedger;
let raw: pg.Client;
beforeEach(async () => {
  ({ url } = await postgres.freshDatabase());
  ledger = await PostgresLedger.open({ url });
  raw = new pg.Client({ connectionString: url });
  await raw.connect();
});
afterEach(async () => {
  await raw.end();
  await ledger.close();
});

const count = async (table: string) =>
  Number((await raw.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);

/**
 * Writes an entry row declaring `lineCount` lines and the given lines (amount, account) in one
 * transaction, bypassing the code's checks. Rejects with the database's error (at the insert or at COMMIT).
 */
async function rawWrite(
  lineCount: number,
  lines: [number | string, string?][],
  key = 'raw:1',
): Promise<void> {
  await raw.query('BEGIN');
  try {
    const { rows } = await raw.query<{ id: string }>(
      `INSERT INTO entries (key, date, description, content_hash, created_at, line_count)
       VALUES ($1, '2026-01-02', 'raw', 'h', 't', $2) RETURNING id`,
      [key, lineCount],
    );
    for (const [i, [amount, account]] of lines.entries()) {
      await raw.query(
        'INSERT INTO lines (entry_id, line_no, account, amount_cents) VALUES ($1, $2, $3, $4)',
        [rows[0]?.id, i + 1, account ?? Accounts.ProcessorClearing, amount],
      );
    }
    await raw.query('COMMIT');
  } catch (error) {
    await raw.query('ROLLBACK');
    throw error;
  }
}

describe('the database enforces balance itself, at COMMIT', () => {
  it('accepts a balanced raw entry (the checks are not over-strict)', async () => {
    await rawWrite(2, [[100], [-100, Accounts.AccountsReceivable]]);
    expect(await count('lines')).toBe(2);
    expect((await ledger.get('raw:1'))?.lines.map((l) => l.amountCents)).toEqual([100, -100]);
  });

  it('refuses an unbalanced entry: the COMMIT fails and nothing is written', async () => {
    await expect(rawWrite(2, [[100], [-50, Accounts.AccountsReceivable]])).rejects.toThrow(
      /entry \d+ is unbalanced: its lines sum to 50 cents/,
    );
    expect(await count('entries')).toBe(0);
    expect(await count('lines')).toBe(0);
  });

  it('refuses an entry whose lines are missing, or more lines than it declares', async () => {
    await expect(rawWrite(2, [])).rejects.toThrow(/has 0 lines, declares 2/);
    await expect(rawWrite(3, [[100], [-100]])).rejects.toThrow(/has 2 lines, declares 3/);
    await expect(rawWrite(2, [[100], [-100], [5]])).rejects.toThrow(/has 3 lines, declares 2/);
    expect(await count('entries')).toBe(0);
  });

  it('refuses lines added later to a posted entry, balanced or not', async () => {
    const { entry } = await ledger.post(twoLine('payment:p1', 1000));
    await raw.query('BEGIN');
    await raw.query(
      `INSERT INTO lines (entry_id, line_no, account, amount_cents) VALUES ($1, 3, $2, 7), ($1, 4, $2, -7)`,
      [entry.id, Accounts.BankCharges],
    );
    await expect(raw.query('COMMIT')).rejects.toThrow(/has 4 lines, declares 2/);
    expect(await count('lines')).toBe(2);
  });

  it('refuses a single line, a zero line, an unknown account, an unsafe or fractional amount', async () => {
    await expect(rawWrite(1, [[0]])).rejects.toThrow(/check constraint/);
    await expect(rawWrite(2, [[0], [0]])).rejects.toThrow(/check constraint/);
    await expect(rawWrite(2, [[100, 'assets:petty-cash'], [-100]])).rejects.toThrow(/foreign key constraint/);
    await expect(rawWrite(2, [[String(2 ** 53)], [String(-(2 ** 53))]])).rejects.toThrow(/check constraint/);
    await expect(rawWrite(2, [['100.5'], ['-100.5']])).rejects.toThrow(
      /invalid input syntax for type bigint/,
    );
    expect(await count('entries')).toBe(0);
  });
});

describe('posted entries are immutable, and an entry is reversed at most once', () => {
  it('refuses UPDATE, DELETE and TRUNCATE of entries, lines and accounts', async () => {
    await ledger.post(twoLine('payment:p1', 1000));
    for (const sql of [
      "UPDATE entries SET date = '2026-01-03'",
      'DELETE FROM entries',
      'TRUNCATE entries CASCADE',
      'UPDATE lines SET amount_cents = 1',
      'DELETE FROM lines',
      'TRUNCATE lines',
      "UPDATE accounts SET title = 'x'",
      'DELETE FROM accounts',
      'TRUNCATE accounts CASCADE',
    ]) {
      await expect(raw.query(sql), sql).rejects.toThrow(/immutable; post a reversal/);
    }
    expect((await ledger.get('payment:p1'))?.date).toBe('2026-01-02');
    expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(1000);
  });

  it('refuses a second reversal row, and a reversal under another key', async () => {
    await ledger.post(twoLine('payment:p1', 1000));
    await ledger.reverse('payment:p1', { reason: 'ACH return', date: '2026-02-01' });
    const reversalRow = (key: string) =>
      raw.query(
        `INSERT INTO entries (key, date, description, reverses, content_hash, created_at, line_count)
         VALUES ($1, '2026-02-02', 'again', 'payment:p1', 'h', 't', 2)`,
        [key],
      );
    await expect(reversalRow('reversal:payment:p1')).rejects.toThrow(/duplicate key value/);
    await expect(reversalRow('reversal2:payment:p1')).rejects.toThrow(/check constraint/);
    await expect(
      raw.query(
        `INSERT INTO entries (key, date, description, reverses, content_hash, created_at, line_count)
         VALUES ('reversal:payment:p9', '2026-02-02', 'x', 'payment:p9', 'h', 't', 2)`,
      ),
    ).rejects.toThrow(/foreign key constraint/);
    expect((await ledger.allEntries()).filter((e) => e.reverses === 'payment:p1')).toHaveLength(1);
  });

  it('refuses a second row under a key', async () => {
    await ledger.post(twoLine('payment:p1', 1000));
    await expect(rawWrite(2, [[5], [-5]], 'payment:p1')).rejects.toThrow(/duplicate key value/);
  });
});

describe('a write failing mid-transaction', () => {
  it('leaves no partial entry, and the same post succeeds afterwards', async () => {
    await raw.query(`CREATE FUNCTION inject_failure() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure'; END $$`);
    await raw.query(
      'CREATE TRIGGER inject_failure AFTER INSERT ON lines FOR EACH ROW WHEN (NEW.line_no = 2) EXECUTE FUNCTION inject_failure()',
    );
    await expect(ledger.post(twoLine('payment:p1', 1000))).rejects.toThrow(/injected failure/);
    expect(await ledger.get('payment:p1')).toBeNull();
    expect(await count('entries')).toBe(0);
    expect(await count('lines')).toBe(0);
    await raw.query('DROP TRIGGER inject_failure ON lines');
    expect((await ledger.post(twoLine('payment:p1', 1000))).created).toBe(true);
    expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(1000);
  });
});

describe('contention', () => {
  it('waits for a lock another transaction holds briefly', async () => {
    const other = await PostgresLedger.open({ url, lockTimeoutMs: 50 });
    try {
      await raw.query('BEGIN');
      await raw.query('LOCK TABLE entries IN ACCESS EXCLUSIVE MODE');
      setTimeout(() => void raw.query('COMMIT'), 150);
      const started = Date.now();
      expect((await other.post(twoLine('payment:p1', 1000))).created).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    } finally {
      await other.close();
    }
  });

  it('surfaces LedgerBusyError once the bounded retries are spent, and writes nothing', async () => {
    const other = await PostgresLedger.open({
      url,
      lockTimeoutMs: 20,
      busyRetry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 2 },
    });
    try {
      await raw.query('BEGIN');
      await raw.query('LOCK TABLE entries IN ACCESS EXCLUSIVE MODE');
      const error = await other.post(twoLine('payment:p1', 1000)).catch((e: unknown) => e);
      await raw.query('ROLLBACK');
      expect(error).toBeInstanceOf(LedgerBusyError);
      expect((error as LedgerBusyError).attempts).toBe(3);
      expect(await ledger.get('payment:p1')).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('two ledgers on one database (two workers) agree: shared keys are idempotent across them', async () => {
    const b = await PostgresLedger.open({ url });
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          [ledger, b].map((l) => l.post(twoLine(`payment:p${i}`, 100 + i))),
        ).flat(),
      );
      expect(results.filter((r) => r.created)).toHaveLength(50);
      await expect(b.post(twoLine('payment:p0', 1))).rejects.toBeInstanceOf(LedgerConflictError);
      const reversals = await Promise.all([
        ledger.reverse('payment:p1', { reason: 'x', date: '2026-02-01' }),
        b.reverse('payment:p1', { reason: 'y', date: '2026-02-02' }),
      ]);
      expect(reversals.filter((r) => r.created)).toHaveLength(1);
      expect(reversals[0]?.entry).toEqual(reversals[1]?.entry);
      expect(await b.trialBalance()).toEqual(await ledger.trialBalance());
    } finally {
      await b.close();
    }
  });
});

describe('the same key with other contents from two processes at once', () => {
  it('books one of them; the other is a LedgerConflictError', async () => {
    const b = await PostgresLedger.open({ url });
    try {
      for (let i = 0; i < 20; i++) {
        const outcomes = await Promise.allSettled([
          ledger.post(twoLine(`payment:x${i}`, 100)),
          b.post(twoLine(`payment:x${i}`, 101)),
        ]);
        const booked = outcomes.filter((o) => o.status === 'fulfilled');
        const refused = outcomes.filter((o) => o.status === 'rejected');
        expect(booked.map((o) => o.value.created)).toEqual([true]);
        expect(refused.map((o) => o.reason)).toEqual([expect.any(LedgerConflictError)]);
      }
      expect(await count('entries')).toBe(20);
      expect((await ledger.trialBalance()).balanced).toBe(true);
    } finally {
      await b.close();
    }
  });
});

describe('schema and connection', () => {
  it('migrates an empty database once, even with several ledgers opening it at once', async () => {
    const emptyUrl = await (await postgres.cluster()).createDatabase('empty_at_start');
    const ledgers = await Promise.all(
      Array.from({ length: 4 }, () => PostgresLedger.open({ url: emptyUrl })),
    );
    try {
      const versions = await ledgers[0]?.pool.query<{ version: number }>(
        'SELECT version FROM ledger_schema_version ORDER BY version',
      );
      expect(versions?.rows.map((r) => r.version)).toEqual(postgresMigrations.map((_, i) => i + 1));
      expect((await ledgers[1]?.post(twoLine('payment:p1', 5)))?.created).toBe(true);
      expect((await ledgers[2]?.trialBalance())?.totalDebitCents).toBe(5);
    } finally {
      for (const l of ledgers) await l.close();
    }
  });

  it('a database user that may only read, insert and update can use a migrated database', async () => {
    await raw.query('CREATE ROLE booksync_writer LOGIN');
    await raw.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await raw.query('GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO booksync_writer');
    const writerUrl = url.replace('postgres://postgres@', 'postgres://booksync_writer@');
    const writer = await PostgresLedger.open({ url: writerUrl });
    try {
      expect((await writer.post(twoLine('payment:p1', 1000))).created).toBe(true);
      expect((await writer.reverse('payment:p1', { reason: 'x', date: '2026-02-01' })).created).toBe(true);
      await expect(writer.pool.query('DELETE FROM lines')).rejects.toThrow(/permission denied|immutable/);
      await expect(writer.pool.query('CREATE TABLE x (a int)')).rejects.toThrow(/permission denied/);
    } finally {
      await writer.close();
      await raw.query('DROP OWNED BY booksync_writer');
      await raw.query('DROP ROLE booksync_writer');
    }
  });

  it('survives a reopen with the same books', async () => {
    await ledger.post(twoLine('payment:p1', 1000, { links: { paymentId: 'p1' } }));
    await ledger.reverse('payment:p1', { reason: 'ACH return', date: '2026-01-09' });
    const before = await ledger.trialBalance();
    const again = await PostgresLedger.open({ url });
    try {
      expect(await again.trialBalance()).toEqual(before);
      expect(await again.isReversed('payment:p1')).toBe(true);
    } finally {
      await again.close();
    }
  });

  it('refuses a database from a newer schema version', async () => {
    await raw.query("INSERT INTO ledger_schema_version (version, migrated_at) VALUES ($1, 'later')", [
      postgresMigrations.length + 1,
    ]);
    await expect(PostgresLedger.open({ url })).rejects.toThrow(/newer than this code knows/);
  });

  it('never puts the password of the url in an error', async () => {
    const error = await PostgresLedger.open({
      url: 'postgres://booksync:s3cret-pw@127.0.0.1:1/books',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('postgres://booksync:***@127.0.0.1:1/books');
    expect((error as Error).message).not.toContain('s3cret-pw');
  });

  it('openLedgerStore: LEDGER_URL picks PostgreSQL (target index in the same database); unset, SQLite', async () => {
    const store = await openLedgerStore({ LEDGER_URL: url, ledgerDb: 'unused.db' });
    try {
      expect(store.kind).toBe('postgres');
      expect(store.location).toBe(url);
      await store.ledger.post(twoLine('payment:p1', 1000));
      const [entry] = await store.targetIndex.next('ledger-mirror', 10);
      expect(entry?.key).toBe('payment:p1');
    } finally {
      await store.close();
    }
    const sqlite = await openLedgerStore({ LEDGER_URL: undefined, ledgerDb: ':memory:' });
    expect(sqlite.kind).toBe('sqlite');
    await sqlite.close();
  });
});
