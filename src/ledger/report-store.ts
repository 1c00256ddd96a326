import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';

// Reports kept whole beside the books: a period's completeness certificate and its payout period report can
// run to megabytes (every unbooked object of a busy month), more than a workflow result may carry (Temporal
// bounds payloads at 2 MiB). The activity that makes one stores it here and returns a bounded summary with its
// id; the CLI and the console read the whole report back by that id. Table `reports` in the ledger's own
// database (migrations.ts, postgres-migrations.ts): immutable rows, the document JSON text as it was written.
// Two stores: the ledger's SQLite file (SqliteReportStore, below) and its PostgreSQL database
// (postgres-report-store.ts).

/**
 * The table in the ledger's SQLite file (migrations.ts): the document as written, a JSON object, its byte size
 * checked against it; immutable, like the entries beside it.
 */
export const sqliteReportsDdl = `
CREATE TABLE reports (
  id TEXT PRIMARY KEY CHECK (length(id) > 0),
  kind TEXT NOT NULL CHECK (kind IN ('close-certificate', 'payout-period-report')),
  period_from TEXT NOT NULL CHECK (period_from GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  period_to TEXT NOT NULL CHECK (period_to GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  created_at TEXT NOT NULL,
  document TEXT NOT NULL CHECK (json_valid(document) AND json_type(document) = 'object'),
  bytes INTEGER NOT NULL CHECK (bytes = length(CAST(document AS BLOB))),
  CHECK (period_from <= period_to)
) STRICT;
CREATE INDEX reports_by_period ON reports (kind, period_from, period_to, created_at);
CREATE TRIGGER reports_immutable_update BEFORE UPDATE ON reports
BEGIN SELECT RAISE(ABORT, 'ledger: a stored report is immutable; store another'); END;
CREATE TRIGGER reports_immutable_delete BEFORE DELETE ON reports
BEGIN SELECT RAISE(ABORT, 'ledger: a stored report is immutable; store another'); END;
`;

export const reportKinds = ['close-certificate', 'payout-period-report'] as const;
export type ReportKind = (typeof reportKinds)[number];

export interface ReportToStore {
  kind: ReportKind;
  period: { from: string; to: string };
  /** A JSON object: the whole report. */
  document: object;
}

/** What the activity hands on in its summary: where the report is, and how large it is. */
export interface StoredReportRef {
  id: string;
  createdAt: string;
  /** UTF-8 bytes of the stored JSON document. */
  bytes: number;
}

export interface StoredReport extends StoredReportRef {
  kind: ReportKind;
  from: string;
  to: string;
  document: unknown;
}

export interface ReportStore {
  /** Stores a report under a new id. Never replaces one: a report made again is another row. */
  storeReport(report: ReportToStore): Promise<StoredReportRef>;
  /** The report stored under `id`, or null. */
  report(id: string): Promise<StoredReport | null>;
}

/** What a reader of reports needs: the console and the CLI only read. */
export type ReportReader = Pick<ReportStore, 'report'>;

/** A report read back that is not of the kind asked for, or missing: named with its id. */
export class ReportNotFoundError extends Error {
  override readonly name = 'ReportNotFoundError';
  readonly id: string;
  readonly kind: ReportKind;
  constructor(id: string, kind: ReportKind) {
    super(`no ${kind} stored under ${id} (is this the ledger the worker writes to?)`);
    this.id = id;
    this.kind = kind;
  }
}

/** The document of the report `id`, which must be of `kind`. */
export async function readReport<T>(reports: ReportReader, id: string, kind: ReportKind): Promise<T> {
  const stored = await reports.report(id);
  if (!stored || stored.kind !== kind) throw new ReportNotFoundError(id, kind);
  return stored.document as T;
}

export function newReportRow(report: ReportToStore, now: Date): ReportRow {
  const document = JSON.stringify(report.document);
  return {
    id: `${report.kind}:${report.period.from}:${report.period.to}:${randomUUID()}`,
    kind: report.kind,
    period_from: report.period.from,
    period_to: report.period.to,
    created_at: now.toISOString(),
    document,
    bytes: Buffer.byteLength(document, 'utf8'),
  };
}

export interface ReportRow {
  id: string;
  kind: ReportKind;
  period_from: string;
  period_to: string;
  created_at: string;
  document: string;
  bytes: number;
}

export function storedReportOf(row: ReportRow): StoredReport {
  return {
    id: row.id,
    kind: row.kind,
    from: row.period_from,
    to: row.period_to,
    createdAt: row.created_at,
    bytes: Number(row.bytes),
    document: JSON.parse(row.document),
  };
}

export const reportColumns = 'id, kind, period_from, period_to, created_at, document, bytes';

export class SqliteReportStore implements ReportStore {
  readonly #now: () => Date;
  readonly #insert: Statement<ReportRow>;
  readonly #byId: Statement<[string], ReportRow>;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#insert = db.prepare(
      `INSERT INTO reports (${reportColumns})
       VALUES (@id, @kind, @period_from, @period_to, @created_at, @document, @bytes)`,
    );
    this.#byId = db.prepare(`SELECT ${reportColumns} FROM reports WHERE id = ?`);
  }

  async storeReport(report: ReportToStore): Promise<StoredReportRef> {
    const row = newReportRow(report, this.#now());
    this.#insert.run(row);
    return { id: row.id, createdAt: row.created_at, bytes: row.bytes };
  }

  async report(id: string): Promise<StoredReport | null> {
    const row = this.#byId.get(id);
    return row ? storedReportOf(row) : null;
  }
}
