import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { LedgerBusyError, LedgerConflictError } from '../../src/ledger/errors.js';
import { migrations } from '../../src/ledger/migrations.js';
import { tempDir, twoLine } from './fixtures.js';

describe('the database enforces balance itself', () => {
  let ledger: EmbeddedLedger;
  beforeEach(() => {
    ledger = EmbeddedLedger.open();
  });
  afterEach(() => ledger.close());

  // Writes an entry row and the given lines (amount, running total) through the raw handle, in one
  // transaction, the way a buggy writer bypassing the code checks would.
  function rawWrite(lineCount: number, lines: [number, number, string?][]): void {
    const db = ledger.database;
    db.transaction(() => {
      const id = db
        .prepare(
          `INSERT INTO entries (key, date, description, content_hash, created_at, line_count)
           VALUES ('raw:1', '2026-01-02', 'raw', 'h', 't', ?)`,
        )
        .run(lineCount).lastInsertRowid;
      lines.forEach(([amount, running, account], i) => {
        db.prepare(
          'INSERT INTO lines (entry_id, line_no, account, amount_cents, running_cents) VALUES (?, ?, ?, ?, ?)',
        ).run(id, i + 1, account ?? Accounts.ProcessorClearing, amount, running);
      });
    })();
  }

  it('accepts a balanced raw entry (the checks are not over-strict)', () => {
    rawWrite(2, [
      [100, 100],
      [-100, 0],
    ]);
    expect(ledger.database.prepare('SELECT count(*) FROM lines').pluck().get()).toBe(2);
  });

  it('rejects an unbalanced entry at commit, honest running totals and all', () => {
    expect(() =>
      rawWrite(2, [
        [100, 100],
        [-50, 50],
      ]),
    ).toThrow(/FOREIGN KEY constraint failed/);
    expect(ledger.database.prepare('SELECT count(*) FROM entries').pluck().get()).toBe(0);
  });

  it('rejects running totals that lie about the lines', () => {
    expect(() =>
      rawWrite(2, [
        [100, 100],
        [-50, 0],
      ]),
    ).toThrow(/running total/);
  });

  it('rejects an entry whose lines are missing', () => {
    expect(() => rawWrite(2, [])).toThrow(/FOREIGN KEY constraint failed/);
    expect(() =>
      rawWrite(3, [
        [100, 100],
        [-100, 0],
      ]),
    ).toThrow(/FOREIGN KEY constraint failed/);
  });

  it('rejects lines beyond the declared count, gaps, a single line, zero and unknown accounts', () => {
    expect(() =>
      rawWrite(2, [
        [100, 100],
        [-100, 0],
        [5, 5],
      ]),
    ).toThrow(/more lines than the entry declares/);
    expect(() => rawWrite(1, [[0, 0]])).toThrow(/CHECK constraint failed/);
    expect(() =>
      rawWrite(2, [
        [0, 0],
        [0, 0],
      ]),
    ).toThrow(/CHECK constraint failed/);
    expect(() =>
      rawWrite(2, [
        [100, 100, 'assets:petty-cash'],
        [-100, 0],
      ]),
    ).toThrow(/FOREIGN KEY constraint failed/);
    expect(ledger.database.prepare('SELECT count(*) FROM entries').pluck().get()).toBe(0);
  });

  it('rejects a fractional amount even through the raw handle', () => {
    expect(() =>
      rawWrite(2, [
        [100.5, 100.5],
        [-100.5, 0],
      ]),
    ).toThrow(/cannot store REAL value in INTEGER column|datatype mismatch/);
  });
});

describe('entries are immutable', () => {
  it('rejects UPDATE and DELETE on entries, lines and accounts', async () => {
    const ledger = EmbeddedLedger.open();
    await ledger.post(twoLine('payment:p1', 1000));
    const db = ledger.database;
    expect(() => db.prepare("UPDATE entries SET date = '2026-01-03'").run()).toThrow(/immutable/);
    expect(() => db.prepare('DELETE FROM entries').run()).toThrow(/immutable/);
    expect(() => db.prepare('UPDATE lines SET amount_cents = 1').run()).toThrow(/immutable/);
    expect(() => db.prepare('DELETE FROM lines').run()).toThrow(/immutable/);
    expect(() => db.prepare("UPDATE accounts SET title = 'x'").run()).toThrow(/immutable/);
    expect(() => db.prepare('DELETE FROM accounts').run()).toThrow(/immutable/);
    expect((await ledger.get('payment:p1'))?.date).toBe('2026-01-02');
    ledger.close();
  });
});

describe('a write failing mid-transaction', () => {
  it('leaves no partial entry, and the same post succeeds afterwards', async () => {
    const ledger = EmbeddedLedger.open();
    // Fails after the entry row and its first line are written.
    ledger.database.exec(
      `CREATE TEMP TRIGGER inject_failure AFTER INSERT ON lines WHEN NEW.line_no = 2
       BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
    await expect(ledger.post(twoLine('payment:p1', 1000))).rejects.toThrow(/injected failure/);
    expect(await ledger.get('payment:p1')).toBeNull();
    expect(ledger.database.prepare('SELECT count(*) FROM entries').pluck().get()).toBe(0);
    expect(ledger.database.prepare('SELECT count(*) FROM lines').pluck().get()).toBe(0);
    expect(ledger.database.inTransaction).toBe(false);

    ledger.database.exec('DROP TRIGGER temp.inject_failure');
    expect((await ledger.post(twoLine('payment:p1', 1000))).created).toBe(true);
    expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(1000);
    ledger.close();
  });
});

describe('file-backed ledger', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it('survives a reopen, in WAL mode at the latest schema version', async () => {
    const path = join(dir.dir, 'books.sqlite');
    const first = EmbeddedLedger.open({ path });
    await first.post(twoLine('payment:p1', 1000, { links: { paymentId: 'p1' } }));
    await first.reverse('payment:p1', { reason: 'ACH return', date: '2026-01-09' });
    await first.post(twoLine('payment:p2', 250));
    const before = await first.trialBalance();
    first.close();

    const second = EmbeddedLedger.open({ path });
    expect(second.database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(second.database.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(await second.trialBalance()).toEqual(before);
    expect(await second.isReversed('payment:p1')).toBe(true);
    expect((await second.post(twoLine('payment:p2', 250))).created).toBe(false);
    second.close();
  });

  it('refuses a database from a newer schema version', () => {
    const path = join(dir.dir, 'books.sqlite');
    EmbeddedLedger.open({ path }).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${migrations.length + 1}`);
    raw.close();
    expect(() => EmbeddedLedger.open({ path })).toThrow(/newer than this code knows/);
  });

  it('retries SQLITE_BUSY while another connection holds the write lock briefly', async () => {
    const path = join(dir.dir, 'books.sqlite');
    const ledger = EmbeddedLedger.open({ path, busyTimeoutMs: 0 });
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        resolve();
      }, 60),
    );
    const started = Date.now();
    const { created } = await ledger.post(twoLine('payment:p1', 1000));
    await released;
    expect(created).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    other.close();
    ledger.close();
  });

  it('surfaces LedgerBusyError once the bounded retries are spent, and writes nothing', async () => {
    const path = join(dir.dir, 'books.sqlite');
    const ledger = EmbeddedLedger.open({
      path,
      busyTimeoutMs: 0,
      busyRetry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 2 },
    });
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const error = await ledger.post(twoLine('payment:p1', 1000)).catch((e: unknown) => e);
    other.exec('ROLLBACK');
    expect(error).toBeInstanceOf(LedgerBusyError);
    expect((error as LedgerBusyError).name).toBe('LedgerBusyError');
    expect((error as LedgerBusyError).attempts).toBe(3);
    expect(await ledger.get('payment:p1')).toBeNull();
    other.close();
    ledger.close();
  });

  it('two ledgers on one file (two workers) agree: shared keys are idempotent across them', async () => {
    const path = join(dir.dir, 'books.sqlite');
    const a = EmbeddedLedger.open({ path });
    const b = EmbeddedLedger.open({ path });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        [a, b].map((l) => l.post(twoLine(`payment:p${i}`, 100 + i))),
      ).flat(),
    );
    expect(results.filter((r) => r.created)).toHaveLength(50);
    await expect(b.post(twoLine('payment:p0', 1))).rejects.toBeInstanceOf(LedgerConflictError);
    await a.reverse('payment:p1', { reason: 'x', date: '2026-02-01' });
    expect((await b.reverse('payment:p1', { reason: 'y', date: '2026-02-02' })).created).toBe(false);
    expect(await b.trialBalance()).toEqual(await a.trialBalance());
    a.close();
    b.close();
  });
});

describe('migration v2 (complete books, accounting targets) on a ledger of the previous release', () => {
  it('keeps every entry and account, adds equity, bill_id and the target index, and still enforces immutability', async () => {
    const { dir, cleanup } = tempDir();
    const file = join(dir, 'ledger.sqlite');
    // The previous release's schema (v1 only), with a booked entry.
    const old = new Database(file);
    old.pragma('foreign_keys = ON');
    old.exec(migrations[0] as string);
    old.pragma('user_version = 1');
    for (const [name, type] of [
      [Accounts.ProcessorClearing, 'asset'],
      [Accounts.AccountsReceivable, 'asset'],
    ] as const) {
      old.prepare('INSERT INTO accounts (name, title, type) VALUES (?, ?, ?)').run(name, name, type);
    }
    old.transaction(() => {
      const id = old
        .prepare(
          `INSERT INTO entries (key, date, description, content_hash, created_at, line_count, payment_id)
           VALUES ('payment:p1', '2026-01-02', 'Payment p1 received', 'h', 't', 2, 'p1')`,
        )
        .run().lastInsertRowid;
      old
        .prepare(
          'INSERT INTO lines (entry_id, line_no, account, amount_cents, running_cents) VALUES (?, 1, ?, 500, 500)',
        )
        .run(id, Accounts.ProcessorClearing);
      old
        .prepare(
          'INSERT INTO lines (entry_id, line_no, account, amount_cents, running_cents) VALUES (?, 2, ?, -500, 0)',
        )
        .run(id, Accounts.AccountsReceivable);
    })();
    old.close();

    const ledger = EmbeddedLedger.open({ path: file });
    try {
      const db = ledger.database;
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect((await ledger.get('payment:p1'))?.lines).toHaveLength(2);
      expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(500);
      expect(
        db.prepare('SELECT type FROM accounts WHERE name = ?').pluck().get(Accounts.OpeningBalances),
      ).toBe('equity');
      expect(() =>
        db.prepare("UPDATE accounts SET title = 'x' WHERE name = ?").run(Accounts.Revenue),
      ).toThrow(/immutable/);
      expect(() => db.prepare('DELETE FROM accounts WHERE name = ?').run(Accounts.ProcessorClearing)).toThrow(
        /immutable/,
      );
      await ledger.post({
        key: 'bill:b1',
        date: '2026-01-03',
        description: 'Bill b1',
        lines: [
          { account: Accounts.BillExpenses, amountCents: 900 },
          { account: Accounts.AccountsPayable, amountCents: -900 },
        ],
        links: { billId: 'b1', vendorId: 'v1' },
      });
      expect((await ledger.entriesFor({ billId: 'b1' })).map((e) => e.key)).toEqual(['bill:b1']);
      expect(db.prepare('SELECT count(*) FROM target_index').pluck().get()).toBe(0);
      // Booked before the push's write-ahead marks existed, payment:p1 may be at a target already (an old
      // attempt may have crashed after creating it): it is looked up; bill:b1, booked since, is not.
      const next = await new SqliteTargetIndex(db).next('quickbooks', 10);
      expect(next.map((e) => [e.key, e.mayExist])).toEqual([
        ['payment:p1', true],
        ['bill:b1', false],
      ]);
    } finally {
      ledger.close();
      cleanup();
    }
  });
});
