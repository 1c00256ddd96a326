import type { PoolClient } from 'pg';
import {
  assertKnownSchemaVersion,
  firstLinkColumns,
  inFlightMarksDdl,
  linkColumnsDdl,
  linkIndexesDdl,
  targetCompaniesDdl,
  targetIndexDdl,
  writeAheadDdl,
} from './ledger-schema.js';
import { postgresReportsDdl } from './postgres-report-store.js';
import { postgresWriteOffsDdl } from './write-offs.js';

// Versioned schema of the ledger on PostgreSQL. `ledger_schema_version` holds how many migrations ran; all
// pending migrations run in one transaction with the version bump, under a transaction-scoped advisory lock,
// so several workers starting at once migrate once and the others wait, then see the new version.
// Append, never edit.
//
// What the database enforces by itself, whoever writes (booksync on any number of processes, or psql):
// - one entry per key (UNIQUE), at most one reversal per entry (UNIQUE reverses, and a reversal's key is
//   `reversal:` || the key it reverses);
// - balance, at COMMIT: a DEFERRABLE INITIALLY DEFERRED constraint trigger on entries and on lines checks
//   that every touched entry has exactly `line_count` lines (at least 2, numbered 1..line_count) summing
//   to 0; a transaction leaving an entry unbalanced or incomplete fails to commit;
// - amounts: BIGINT cents, never 0, within JavaScript's safe integer range;
// - accounts by foreign key;
// - immutability: triggers reject UPDATE, DELETE and TRUNCATE of entries, lines and accounts.
// The target index (per accounting target, what became of each entry) lives beside the entries, mutable.

/** The advisory lock key migrations take (any constant unique to booksync's ledger). */
export const migrationLockKey = 7_316_592_001;

const safe = '9007199254740991';

const v1 = `
CREATE TABLE accounts (
  name TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('asset', 'liability', 'equity', 'income', 'expense'))
);

CREATE TABLE entries (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  date TEXT NOT NULL CHECK (date ~ '^[0-9]{4}-[0-1][0-9]-[0-3][0-9]$'),
  description TEXT NOT NULL CHECK (length(description) > 0),
  reverses TEXT UNIQUE REFERENCES entries (key),
  content_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  line_count INTEGER NOT NULL CHECK (line_count >= 2),
${linkColumnsDdl([...firstLinkColumns, 'bill_id'])}
  CHECK (reverses IS NULL OR key = 'reversal:' || reverses)
);

CREATE TABLE lines (
  entry_id BIGINT NOT NULL REFERENCES entries (id),
  line_no INTEGER NOT NULL CHECK (line_no >= 1),
  account TEXT NOT NULL REFERENCES accounts (name),
  amount_cents BIGINT NOT NULL CHECK (amount_cents <> 0 AND amount_cents BETWEEN -${safe} AND ${safe}),
  memo TEXT,
  PRIMARY KEY (entry_id, line_no)
);

CREATE INDEX lines_by_account ON lines (account);
${linkIndexesDdl([...firstLinkColumns, 'bill_id'])}

-- Balance at COMMIT, for every entry a transaction touched (a new entry, or lines added to an old one).
CREATE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target_id BIGINT;
  declared INTEGER;
  n INTEGER;
  top INTEGER;
  total NUMERIC;
BEGIN
  IF TG_TABLE_NAME = 'entries' THEN target_id := NEW.id; ELSE target_id := NEW.entry_id; END IF;
  SELECT line_count INTO declared FROM entries WHERE id = target_id;
  SELECT count(*), max(line_no), coalesce(sum(amount_cents), 0) INTO n, top, total
    FROM lines WHERE entry_id = target_id;
  IF n < 2 OR n <> declared OR top <> declared THEN
    RAISE EXCEPTION 'ledger: entry % has % lines, declares % (at least 2, numbered 1..%)',
      target_id, n, declared, declared USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF total <> 0 THEN
    RAISE EXCEPTION 'ledger: entry % is unbalanced: its lines sum to % cents, not 0', target_id, total
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER entries_balanced AFTER INSERT ON entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_balanced();
CREATE CONSTRAINT TRIGGER lines_balanced AFTER INSERT ON lines
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_balanced();

CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger: % are immutable; post a reversal', TG_TABLE_NAME
    USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE TRIGGER entries_immutable BEFORE UPDATE OR DELETE ON entries
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER entries_no_truncate BEFORE TRUNCATE ON entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER lines_immutable BEFORE UPDATE OR DELETE ON lines
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER lines_no_truncate BEFORE TRUNCATE ON lines
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER accounts_immutable BEFORE UPDATE OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER accounts_no_truncate BEFORE TRUNCATE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();

${targetIndexDdl({ entryId: 'BIGINT', strict: false })}
`;

// v2: the day the books open (backfill): the step 'opened' when a backfill starts, 'balances-booked' when
// its opening entry is booked. Rows are never changed once written.
const v2 = `
CREATE TABLE books_opening (
  step TEXT PRIMARY KEY CHECK (step IN ('opened', 'balances-booked')),
  opens_on TEXT NOT NULL CHECK (opens_on ~ '^\\d{4}-[01]\\d-[0-3]\\d$'),
  at TEXT NOT NULL
);
CREATE TRIGGER books_opening_immutable BEFORE UPDATE OR DELETE ON books_opening
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER books_opening_no_truncate BEFORE TRUNCATE ON books_opening
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
`;

// v3: closed periods, as in SQLite's v4: closings only forward and immutable; an entry dated
// on or before the last closed day is refused by the database, whoever writes it.
const v3 = `
ALTER TABLE entries ADD COLUMN economic_date TEXT CHECK (economic_date IS NULL OR economic_date ~ '^\\d{4}-[01]\\d-[0-3]\\d$');
CREATE TABLE books_closings (
  through TEXT PRIMARY KEY CHECK (through ~ '^\\d{4}-[01]\\d-[0-3]\\d$'),
  at TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (length(reason) > 0),
  forced BOOLEAN NOT NULL
);
CREATE TRIGGER books_closings_immutable BEFORE UPDATE OR DELETE ON books_closings
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER books_closings_no_truncate BEFORE TRUNCATE ON books_closings
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
CREATE FUNCTION ledger_closings_forward() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.through <= (SELECT max(through) FROM books_closings) THEN
    RAISE EXCEPTION 'ledger: the books close only forward; a closed period never reopens'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER books_closings_forward BEFORE INSERT ON books_closings
  FOR EACH ROW EXECUTE FUNCTION ledger_closings_forward();
CREATE FUNCTION ledger_entry_in_open_period() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.date <= (SELECT max(through) FROM books_closings) THEN
    RAISE EXCEPTION 'ledger: the period is closed through %; an entry dated % is booked on the first open day',
      (SELECT max(through) FROM books_closings), NEW.date USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER entries_not_in_closed_period BEFORE INSERT ON entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entry_in_open_period();
`;

// v4: write-ahead push attempts and the targets' leases, as in SQLite's v5.
const v4 = `
${writeAheadDdl({ entryId: 'BIGINT', strict: false })}
`;

// v5: the write-ahead marks' time, as in SQLite's v6.
const v5 = inFlightMarksDdl;

// v6: entries.deposit_slip_id, as in SQLite's v7.
const v6 = `
ALTER TABLE entries ADD COLUMN deposit_slip_id TEXT;
${linkIndexesDdl(['deposit_slip_id'])}
`;

// v7: target_companies, as in SQLite's v8.
const v7 = targetCompaniesDdl({ strict: false });

// v8: reports kept whole beside the books, as in SQLite's v9.
const v8 = postgresReportsDdl;

// v9: the business's write-offs, as in SQLite's v10.
const v9 = postgresWriteOffsDdl;

export const postgresMigrations: readonly string[] = [v1, v2, v3, v4, v5, v6, v7, v8, v9];

/** Runs the pending migrations on a connection outside any transaction; returns the schema version. */
export async function migratePostgres(client: PoolClient): Promise<number> {
  await client.query('BEGIN');
  try {
    // Another process may be migrating: wait for it however long the pool's lock_timeout is.
    await client.query("SET LOCAL lock_timeout = '120s'");
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey]);
    // Only created when missing: a database user without CREATE can use a migrated database.
    const { rows: found } = await client.query<{ present: boolean }>(
      "SELECT to_regclass('ledger_schema_version') IS NOT NULL AS present",
    );
    if (!found[0]?.present) {
      await client.query(
        'CREATE TABLE ledger_schema_version (version INTEGER NOT NULL, migrated_at TEXT NOT NULL)',
      );
    }
    const { rows } = await client.query<{ version: number }>(
      'SELECT coalesce(max(version), 0) AS version FROM ledger_schema_version',
    );
    const current = rows[0]?.version ?? 0;
    assertKnownSchemaVersion(current, postgresMigrations.length);
    for (let version = current; version < postgresMigrations.length; version++) {
      await client.query(postgresMigrations[version] as string);
      await client.query('INSERT INTO ledger_schema_version (version, migrated_at) VALUES ($1, $2)', [
        version + 1,
        new Date().toISOString(),
      ]);
    }
    await client.query('COMMIT');
    return postgresMigrations.length;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
