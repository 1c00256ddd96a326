import type { Database } from 'better-sqlite3';
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
import { sqliteReportsDdl } from './report-store.js';
import { sqliteWriteOffsDdl } from './write-offs.js';

// Versioned schema of the embedded ledger. PRAGMA user_version holds how many migrations ran; each
// migration runs in its own transaction together with the version bump. Append, never edit.
//
// Balance is enforced by the database as well as in code, so a bug cannot write an unbalanced entry:
// - each line stores the running total of its entry (`running_cents`); a trigger checks it equals the
//   previous line's running total plus this amount, and that line numbers are 1, 2, 3... without gaps;
// - the entry row declares its `line_count`, and a DEFERRED foreign key from
//   (id, line_count, zero) to lines(entry_id, line_no, running_cents) requires, at COMMIT, that the last
//   line exists and that its running total is 0. A transaction leaving an entry unbalanced or with
//   missing lines fails to commit. (Requires PRAGMA foreign_keys = ON, which the ledger always sets.)
// Entries, lines and accounts are immutable: triggers reject UPDATE and DELETE.

const v1 = `
CREATE TABLE accounts (
  name TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('asset', 'liability', 'income', 'expense'))
) STRICT;

CREATE TABLE entries (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  date TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  description TEXT NOT NULL CHECK (length(description) > 0),
  reverses TEXT UNIQUE REFERENCES entries (key),
  content_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  line_count INTEGER NOT NULL CHECK (line_count >= 2),
  zero INTEGER NOT NULL DEFAULT 0 CHECK (zero = 0),
${linkColumnsDdl(firstLinkColumns)}
  CHECK (reverses IS NULL OR key = 'reversal:' || reverses),
  FOREIGN KEY (id, line_count, zero) REFERENCES lines (entry_id, line_no, running_cents)
    DEFERRABLE INITIALLY DEFERRED
) STRICT;

CREATE TABLE lines (
  entry_id INTEGER NOT NULL REFERENCES entries (id),
  line_no INTEGER NOT NULL CHECK (line_no >= 1),
  account TEXT NOT NULL REFERENCES accounts (name),
  amount_cents INTEGER NOT NULL CHECK (amount_cents <> 0),
  running_cents INTEGER NOT NULL,
  memo TEXT,
  PRIMARY KEY (entry_id, line_no),
  UNIQUE (entry_id, line_no, running_cents)
) STRICT;

CREATE INDEX lines_by_account ON lines (account);
${linkIndexesDdl(firstLinkColumns)}

CREATE TRIGGER lines_in_sequence BEFORE INSERT ON lines
BEGIN
  SELECT RAISE(ABORT, 'ledger: line numbers must run 1, 2, 3... within an entry')
  WHERE NEW.line_no <> 1 + (SELECT count(*) FROM lines WHERE entry_id = NEW.entry_id);
  SELECT RAISE(ABORT, 'ledger: more lines than the entry declares')
  WHERE NEW.line_no > (SELECT line_count FROM entries WHERE id = NEW.entry_id);
  SELECT RAISE(ABORT, 'ledger: running total does not match the lines')
  WHERE NEW.running_cents <> NEW.amount_cents + coalesce(
    (SELECT running_cents FROM lines WHERE entry_id = NEW.entry_id AND line_no = NEW.line_no - 1), 0);
END;

CREATE TRIGGER entries_immutable_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'ledger: entries are immutable; post a reversal'); END;
CREATE TRIGGER entries_immutable_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'ledger: entries are immutable; post a reversal'); END;
CREATE TRIGGER lines_immutable_update BEFORE UPDATE ON lines
BEGIN SELECT RAISE(ABORT, 'ledger: lines are immutable; post a reversal'); END;
CREATE TRIGGER lines_immutable_delete BEFORE DELETE ON lines
BEGIN SELECT RAISE(ABORT, 'ledger: lines are immutable; post a reversal'); END;
CREATE TRIGGER accounts_immutable_update BEFORE UPDATE ON accounts
BEGIN SELECT RAISE(ABORT, 'ledger: accounts are immutable'); END;
CREATE TRIGGER accounts_immutable_delete BEFORE DELETE ON accounts
BEGIN SELECT RAISE(ABORT, 'ledger: accounts are immutable'); END;
`;

// v2: complete books and accounting targets.
// - accounts.type gains 'equity' (Opening Balances). SQLite cannot alter a CHECK, so the table is rebuilt
//   (SQLite's own procedure: foreign keys off, copy, rename, foreign_key_check before COMMIT, see migrate).
// - entries.bill_id: the bill a payable line concerns (the document dimension of payables).
// - target_index: per accounting target, what became of each entry (design overview, "Accounting targets").
const v2 = `
DROP TRIGGER accounts_immutable_update;
DROP TRIGGER accounts_immutable_delete;
CREATE TABLE accounts_v2 (
  name TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('asset', 'liability', 'equity', 'income', 'expense'))
) STRICT;
INSERT INTO accounts_v2 (name, title, type) SELECT name, title, type FROM accounts;
DROP TABLE accounts;
ALTER TABLE accounts_v2 RENAME TO accounts;
CREATE TRIGGER accounts_immutable_update BEFORE UPDATE ON accounts
BEGIN SELECT RAISE(ABORT, 'ledger: accounts are immutable'); END;
CREATE TRIGGER accounts_immutable_delete BEFORE DELETE ON accounts
BEGIN SELECT RAISE(ABORT, 'ledger: accounts are immutable'); END;

ALTER TABLE entries ADD COLUMN bill_id TEXT;
${linkIndexesDdl(['bill_id'])}

${targetIndexDdl({ entryId: 'INTEGER', strict: true })}
`;

// v3: the day the books open (backfill): the step 'opened' when a backfill starts, 'balances-booked' when
// its opening entry is booked. Rows are never changed once written.
const v3 = `
CREATE TABLE books_opening (
  step TEXT PRIMARY KEY CHECK (step IN ('opened', 'balances-booked')),
  opens_on TEXT NOT NULL CHECK (opens_on GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  at TEXT NOT NULL
) STRICT;
CREATE TRIGGER books_opening_immutable_update BEFORE UPDATE ON books_opening
BEGIN SELECT RAISE(ABORT, 'ledger: the books opening is immutable'); END;
CREATE TRIGGER books_opening_immutable_delete BEFORE DELETE ON books_opening
BEGIN SELECT RAISE(ABORT, 'ledger: the books opening is immutable'); END;
`;

// v4: closed periods. A closing is one row per day the books were closed through, only forward;
// an entry dated on or before the last closed day is refused by the database, whoever writes it (the ledger
// books such an entry on the first open day, its own date in economic_date).
const v4 = `
ALTER TABLE entries ADD COLUMN economic_date TEXT
  CHECK (economic_date IS NULL OR economic_date GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]');
CREATE TABLE books_closings (
  through TEXT PRIMARY KEY CHECK (through GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  at TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (length(reason) > 0),
  forced INTEGER NOT NULL CHECK (forced IN (0, 1))
) STRICT;
CREATE TRIGGER books_closings_forward BEFORE INSERT ON books_closings
BEGIN
  SELECT RAISE(ABORT, 'ledger: the books close only forward; a closed period never reopens')
  WHERE NEW.through <= (SELECT max(through) FROM books_closings);
END;
CREATE TRIGGER books_closings_immutable_update BEFORE UPDATE ON books_closings
BEGIN SELECT RAISE(ABORT, 'ledger: a closing of the books is immutable'); END;
CREATE TRIGGER books_closings_immutable_delete BEFORE DELETE ON books_closings
BEGIN SELECT RAISE(ABORT, 'ledger: a closing of the books is immutable'); END;
CREATE TRIGGER entries_not_in_closed_period BEFORE INSERT ON entries
BEGIN
  SELECT RAISE(ABORT, 'ledger: the period is closed; an entry dated in it is booked on the first open day')
  WHERE NEW.date <= (SELECT max(through) FROM books_closings);
END;
`;

// v5: write-ahead push attempts. Before a target write the push marks the entries it is about
// to create with its lease (attempted_by), so only an entry an attempt may have reached the target with is
// looked up there; target_leases holds each target's latest lease (the fencing token: an attempt whose lease
// is no longer the latest marks nothing, so it creates nothing). Entries booked before this version may have
// been created without a mark: write_ahead_since says through which entry id that holds.
const v5 = `
${writeAheadDdl({ entryId: 'INTEGER', strict: true })}
`;

// v6: when each write-ahead mark was made, cleared when its attempt ends (ledger-schema.ts inFlightMarksDdl):
// a later attempt waits out a write still on its way to the target instead of creating the document again.
const v6 = inFlightMarksDdl;

// v7: entries.deposit_slip_id, the deposit slip (its reference) a deposit of checks received outside the
// service was booked by, so the checks a slip took to the bank are found through its index.
const v7 = `
ALTER TABLE entries ADD COLUMN deposit_slip_id TEXT;
${linkIndexesDdl(['deposit_slip_id'])}
`;

// v8: target_companies, the company (QuickBooks realm, Xero tenant) each target's index was built against.
const v8 = targetCompaniesDdl({ strict: true });

// v9: reports kept whole beside the books (report-store.ts): a period's certificate or payout period report,
// which a workflow result only summarizes.
const v9 = sqliteReportsDdl;

// v10: write_offs, the business's write-offs of what a payment link still owes (write-offs.ts), recorded before
// the link's amount is lowered at the service: what they cover of the lowering is booked to Bad Debt.
const v10 = sqliteWriteOffsDdl;

export const migrations: readonly string[] = [v1, v2, v3, v4, v5, v6, v7, v8, v9, v10];

export function migrate(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  assertKnownSchemaVersion(current, migrations.length);
  if (current === migrations.length) return;
  // A migration may rebuild a table that others reference, which SQLite allows only with foreign keys
  // off; foreign_key_check then proves, inside the same transaction, that every reference still holds.
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  try {
    for (let version = current; version < migrations.length; version++) {
      const sql = migrations[version] as string;
      db.transaction(() => {
        db.exec(sql);
        const broken = db.pragma('foreign_key_check') as unknown[];
        if (broken.length > 0) {
          throw new Error(`ledger migration ${version + 1} broke ${broken.length} references; rolled back`);
        }
        db.pragma(`user_version = ${version + 1}`);
      }).immediate();
    }
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
}
