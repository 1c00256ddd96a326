import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { BooksClosedError, LedgerValidationError } from '../../src/ledger/errors.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { syncEntries } from '../../src/ledger/sync.js';
import { twoLine } from './fixtures.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

// Closed periods on both stores: the books close only forward; an entry whose date is in the
// closed period is booked on the first open day with its own date kept; reversals are new entries in the
// open period; and the database itself refuses an entry written into a closed period with SQL.

/** Writes a balanced entry dated `date` with SQL, bypassing the code: the database alone decides. */
async function rawEntry(ledger: TestLedger, key: string, date: string): Promise<void> {
  if (ledger instanceof EmbeddedLedger) {
    const db = ledger.database;
    db.transaction(() => {
      const id = db
        .prepare(
          `INSERT INTO entries (key, date, description, content_hash, created_at, line_count)
           VALUES (?, ?, 'raw', 'h', 't', 2)`,
        )
        .run(key, date).lastInsertRowid;
      const line = db.prepare(
        'INSERT INTO lines (entry_id, line_no, account, amount_cents, running_cents) VALUES (?, ?, ?, ?, ?)',
      );
      line.run(id, 1, Accounts.ProcessorClearing, 100, 100);
      line.run(id, 2, Accounts.AccountsReceivable, -100, 0);
    })();
    return;
  }
  if (!(ledger instanceof PostgresLedger)) throw new Error('unknown store');
  const client = await ledger.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO entries (key, date, description, content_hash, created_at, line_count)
       VALUES ($1, $2, 'raw', 'h', 't', 2) RETURNING id`,
      [key, date],
    );
    await client.query(
      'INSERT INTO lines (entry_id, line_no, account, amount_cents) VALUES ($1, 1, $2, 100), ($1, 2, $3, -100)',
      [rows[0]?.id, Accounts.ProcessorClearing, Accounts.AccountsReceivable],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** Changes or removes a closing with SQL. */
async function rawClosingChange(ledger: TestLedger, sql: string): Promise<void> {
  if (ledger instanceof EmbeddedLedger) ledger.database.prepare(sql).run();
  else if (ledger instanceof PostgresLedger) await ledger.pool.query(sql);
}

describe.each(ledgerStores())('$name ledger: closed periods', (store) => {
  let ledger: TestLedger;
  beforeEach(async () => {
    ledger = await store.open();
  });
  afterEach(() => ledger.close());

  it('closes only forward: the same day again is a no-op, an earlier day is refused', async () => {
    expect(await ledger.booksClosedThrough()).toBeNull();
    expect(await ledger.closeBooks('2026-01-31', { reason: 'January reviewed', forced: false })).toEqual({
      closedThrough: '2026-01-31',
      created: true,
    });
    expect(await ledger.closeBooks('2026-01-31', { reason: 'again', forced: false })).toEqual({
      closedThrough: '2026-01-31',
      created: false,
    });
    await expect(ledger.closeBooks('2026-01-15', { reason: 'oops', forced: false })).rejects.toBeInstanceOf(
      BooksClosedError,
    );
    await expect(ledger.closeBooks('2026-02-30', { reason: 'x', forced: false })).rejects.toBeInstanceOf(
      LedgerValidationError,
    );
    await expect(ledger.closeBooks('2026-02-28', { reason: ' ', forced: false })).rejects.toBeInstanceOf(
      LedgerValidationError,
    );
    await ledger.closeBooks('2026-02-28', { reason: 'certificate failed: see ticket 12', forced: true });
    expect(await ledger.booksClosedThrough()).toBe('2026-02-28');
    const closings = await ledger.booksClosings();
    expect(closings.map(({ through, reason, forced }) => ({ through, reason, forced }))).toEqual([
      { through: '2026-01-31', reason: 'January reviewed', forced: false },
      { through: '2026-02-28', reason: 'certificate failed: see ticket 12', forced: true },
    ]);
    expect(Number.isNaN(Date.parse(closings[0]?.at ?? ''))).toBe(false);
  });

  it('books an entry dated in the closed period on the first open day, keeping its own date', async () => {
    await ledger.post(twoLine('payment:early', 1_000, { date: '2026-01-20' }));
    await ledger.closeBooks('2026-01-31', { reason: 'January closed', forced: false });
    const late = twoLine('payment:late', 2_500, { date: '2026-01-30', links: { paymentId: 'late' } });
    const { entry, created } = await ledger.post(late);
    expect(created).toBe(true);
    expect(entry.date).toBe('2026-02-01');
    expect(entry.economicDate).toBe('2026-01-30');
    const read = await ledger.get('payment:late');
    expect(read?.date).toBe('2026-02-01');
    expect(read?.economicDate).toBe('2026-01-30');
    // The same post again is the same post, not a conflict.
    expect((await ledger.post(late)).created).toBe(false);
    // An entry in the open period is booked as it is, with no economic date.
    const open = await ledger.post(twoLine('payment:feb', 700, { date: '2026-02-03' }));
    expect(open.entry.date).toBe('2026-02-03');
    expect(open.entry.economicDate).toBeUndefined();
    // postMany follows the same rule.
    const [many] = await ledger.postMany([twoLine('payment:many', 300, { date: '2025-12-31' })]);
    expect(many?.entry.date).toBe('2026-02-01');
    expect(many?.entry.economicDate).toBe('2025-12-31');
    // January's entries are untouched.
    expect((await ledger.get('payment:early'))?.date).toBe('2026-01-20');
  });

  it('reverses a January entry with a new entry in the open period, never in January', async () => {
    await ledger.post(twoLine('payment:jan', 4_000, { date: '2026-01-10', links: { paymentId: 'jan' } }));
    await ledger.closeBooks('2026-01-31', { reason: 'January closed', forced: false });
    // An ACH return seen in February, dated (by a late worker) in January: the reversal lands in February.
    const { entry } = await ledger.reverse('payment:jan', { reason: 'payment.failed', date: '2026-01-28' });
    expect(entry.date).toBe('2026-02-01');
    expect(entry.economicDate).toBe('2026-01-28');
    const original = await ledger.get('payment:jan');
    expect(original?.date).toBe('2026-01-10');
    expect(original?.reversedBy).toBe('reversal:payment:jan');
  });

  it('a sync after the close sees the re-dated entry as booked (no conflict, no second entry)', async () => {
    await ledger.closeBooks('2026-01-31', { reason: 'January closed', forced: false });
    const desired = [twoLine('payment:p1', 900, { date: '2026-01-31', links: { paymentId: 'p1' } })];
    const options = { kinds: ['payment'], date: '2026-02-02' };
    expect((await syncEntries(ledger, desired, { paymentId: 'p1' }, options)).posted).toEqual(['payment:p1']);
    const again = await syncEntries(ledger, desired, { paymentId: 'p1' }, options);
    expect(again).toEqual({ posted: [], reversed: [], unchanged: ['payment:p1'] });
  });

  it('the database refuses an entry written into a closed period with SQL, and keeps closings as written', async () => {
    await ledger.closeBooks('2026-01-31', { reason: 'January closed', forced: false });
    await expect(rawEntry(ledger, 'raw:jan', '2026-01-31')).rejects.toThrow(/closed/);
    await rawEntry(ledger, 'raw:feb', '2026-02-01');
    expect((await ledger.get('raw:feb'))?.date).toBe('2026-02-01');
    expect(await ledger.get('raw:jan')).toBeNull();
    await expect(
      rawClosingChange(ledger, "UPDATE books_closings SET through = '2025-12-31'"),
    ).rejects.toThrow(/immutable/);
    await expect(rawClosingChange(ledger, 'DELETE FROM books_closings')).rejects.toThrow(/immutable/);
    await expect(
      rawClosingChange(
        ledger,
        "INSERT INTO books_closings (through, at, reason, forced) VALUES ('2026-01-15', 't', 'back', false)",
      ),
    ).rejects.toThrow(/only forward/);
    expect(await ledger.booksClosedThrough()).toBe('2026-01-31');
  });
});
