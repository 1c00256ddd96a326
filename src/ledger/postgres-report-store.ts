import type pg from 'pg';
import {
  newReportRow,
  type ReportRow,
  type ReportStore,
  type ReportToStore,
  reportColumns,
  type StoredReport,
  type StoredReportRef,
  storedReportOf,
} from './report-store.js';

// The reports in the ledger's PostgreSQL database (table reports, postgres-migrations.ts): the same rows and
// answers as the SQLite store.

/**
 * The table in the ledger's PostgreSQL database (postgres-migrations.ts), as in SQLite: the document as
 * written (a JSON object), its byte size checked against it; ledger_immutable refuses UPDATE, DELETE and
 * TRUNCATE.
 */
export const postgresReportsDdl = `
CREATE TABLE reports (
  id TEXT PRIMARY KEY CHECK (length(id) > 0),
  kind TEXT NOT NULL CHECK (kind IN ('close-certificate', 'payout-period-report')),
  period_from TEXT NOT NULL CHECK (period_from ~ '^\\d{4}-[01]\\d-[0-3]\\d$'),
  period_to TEXT NOT NULL CHECK (period_to ~ '^\\d{4}-[01]\\d-[0-3]\\d$'),
  created_at TEXT NOT NULL,
  document TEXT NOT NULL CHECK (jsonb_typeof(document::jsonb) = 'object'),
  bytes INTEGER NOT NULL CHECK (bytes = octet_length(document)),
  CHECK (period_from <= period_to)
);
CREATE INDEX reports_by_period ON reports (kind, period_from, period_to, created_at);
CREATE TRIGGER reports_immutable BEFORE UPDATE OR DELETE ON reports
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER reports_no_truncate BEFORE TRUNCATE ON reports
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
`;

export class PostgresReportStore implements ReportStore {
  readonly #pool: pg.Pool;
  readonly #now: () => Date;

  constructor(pool: pg.Pool, options: { now?: () => Date } = {}) {
    this.#pool = pool;
    this.#now = options.now ?? (() => new Date());
  }

  async storeReport(report: ReportToStore): Promise<StoredReportRef> {
    const row = newReportRow(report, this.#now());
    await this.#pool.query(`INSERT INTO reports (${reportColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      row.id,
      row.kind,
      row.period_from,
      row.period_to,
      row.created_at,
      row.document,
      row.bytes,
    ]);
    return { id: row.id, createdAt: row.created_at, bytes: row.bytes };
  }

  async report(id: string): Promise<StoredReport | null> {
    const { rows } = await this.#pool.query<ReportRow>(`SELECT ${reportColumns} FROM reports WHERE id = $1`, [
      id,
    ]);
    return rows[0] ? storedReportOf(rows[0]) : null;
  }
}
