import { describe, expect, it } from 'vitest';
import type { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { PostgresReportStore } from '../../src/ledger/postgres-report-store.js';
import {
  ReportNotFoundError,
  type ReportStore,
  readReport,
  SqliteReportStore,
} from '../../src/ledger/report-store.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

// The reports kept whole beside the books, on both ledger stores: what is stored reads back the same by its
// id, with its size; the database itself refuses a changed or deleted report, an unknown kind, a document that
// is not a JSON object or whose size is misstated, and a period running backwards.

async function open(store: { open(): Promise<TestLedger> }) {
  const ledger = await store.open();
  const reports: ReportStore =
    ledger instanceof PostgresLedger
      ? new PostgresReportStore(ledger.pool, { now: () => new Date('2026-04-01T02:00:00Z') })
      : new SqliteReportStore((ledger as EmbeddedLedger).database, {
          now: () => new Date('2026-04-01T02:00:00Z'),
        });
  /** Runs SQL straight on the store's database, as psql or sqlite3 would. */
  const raw = async (sql: string, params: unknown[] = []) => {
    if (ledger instanceof PostgresLedger) await ledger.pool.query(sql, params);
    else (ledger as EmbeddedLedger).database.prepare(sql.replace(/\$\d+/g, '?')).run(...params);
  };
  return { ledger, reports, raw };
}

describe.each(ledgerStores())('reports on the $name ledger', (store) => {
  it('reads a stored report back whole by its id, with its kind, period, time and size', async () => {
    const { ledger, reports } = await open(store);
    try {
      const document = { passes: false, problems: ['payment pay_1: MISSING', 'é'], counts: { objects: 2 } };
      const stored = await reports.storeReport({
        kind: 'close-certificate',
        period: { from: '2026-03-01', to: '2026-03-31' },
        document,
      });
      expect(stored.bytes).toBe(Buffer.byteLength(JSON.stringify(document), 'utf8'));
      expect(await reports.report(stored.id)).toEqual({
        id: stored.id,
        kind: 'close-certificate',
        from: '2026-03-01',
        to: '2026-03-31',
        createdAt: '2026-04-01T02:00:00.000Z',
        bytes: stored.bytes,
        document,
      });
      // The same report made again is another row; a reader asking for another kind is refused.
      const again = await reports.storeReport({
        kind: 'close-certificate',
        period: { from: '2026-03-01', to: '2026-03-31' },
        document,
      });
      expect(again.id).not.toBe(stored.id);
      await expect(readReport(reports, stored.id, 'payout-period-report')).rejects.toBeInstanceOf(
        ReportNotFoundError,
      );
      expect(await reports.report('no-such-report')).toBeNull();
    } finally {
      await ledger.close();
    }
  });

  it('the database refuses changing or deleting a report, and rows that break its rules', async () => {
    const { ledger, reports, raw } = await open(store);
    try {
      const stored = await reports.storeReport({
        kind: 'payout-period-report',
        period: { from: '2026-03-01', to: '2026-03-31' },
        document: { totals: { payouts: 0 } },
      });
      await expect(raw('UPDATE reports SET document = $1 WHERE id = $2', ['{}', stored.id])).rejects.toThrow(
        /immutable/,
      );
      await expect(raw('DELETE FROM reports WHERE id = $1', [stored.id])).rejects.toThrow(/immutable/);
      const insert = (row: [string, string, string, string, string, number]) =>
        raw(
          `INSERT INTO reports (id, kind, period_from, period_to, created_at, document, bytes)
           VALUES ($1, $2, $3, $4, 'now', $5, $6)`,
          row,
        );
      await expect(insert(['a', 'trial-balance', '2026-03-01', '2026-03-31', '{}', 2])).rejects.toThrow();
      await expect(
        insert(['b', 'close-certificate', '2026-03-01', '2026-03-31', '[1]', 3]),
      ).rejects.toThrow();
      await expect(insert(['c', 'close-certificate', '2026-03-01', '2026-03-31', '{}', 5])).rejects.toThrow();
      await expect(insert(['d', 'close-certificate', '2026-03-31', '2026-03-01', '{}', 2])).rejects.toThrow();
      await expect(insert(['e', 'close-certificate', '2026-3-1', '2026-03-31', '{}', 2])).rejects.toThrow();
      await insert(['f', 'close-certificate', '2026-03-01', '2026-03-31', '{}', 2]);
      expect(await reports.report('f')).toMatchObject({ document: {}, bytes: 2 });
      expect((await reports.report(stored.id))?.document).toEqual({ totals: { payouts: 0 } });
    } finally {
      await ledger.close();
    }
  });
});
