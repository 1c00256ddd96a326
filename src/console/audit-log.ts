import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';

// Every console action (sign-in, sign-out, retry, closing the books...), who did it and when, what it was and
// how it ended; kept in console.db and shown, a page at a time, on the console's Audit page. Append-only (the
// database refuses UPDATE and DELETE, console-db.ts) and hash-chained: each row stores the previous row's hash
// and its own, the SHA-256 of that previous hash and its contents, so a row changed, removed or moved in the
// file breaks the chain from there (`booksync console audit verify`).

export const AuditRecord = z.object({
  id: z.number().int(),
  at: z.string(),
  who: z.string(),
  role: z.string().nullable(),
  action: z.string(),
  detail: z.string(),
  outcome: z.string(),
  ip: z.string().nullable(),
});
export type AuditRecord = z.infer<typeof AuditRecord>;

export type AuditInput = Omit<AuditRecord, 'id' | 'at'>;

const ChainedRow = AuditRecord.extend({ prev_hash: z.string().nullable(), hash: z.string().nullable() });
type ChainedRow = z.infer<typeof ChainedRow>;

/** The previous hash of the first row. */
export const genesisHash = '0'.repeat(64);

/** A row's hash: of the previous row's hash and every column of its own. */
export function auditRowHash(prevHash: string, row: AuditRecord): string {
  const contents = [row.id, row.at, row.who, row.role, row.action, row.detail, row.outcome, row.ip];
  return createHash('sha256')
    .update(`${prevHash}\n${JSON.stringify(contents)}`)
    .digest('hex');
}

export interface AuditPage {
  /** Newest first. */
  records: AuditRecord[];
  /** The id to ask for older rows with (`before`), or null on the last page. */
  older: number | null;
}

export class AuditLog {
  readonly #append: (row: AuditInput & { at: string }) => void;
  readonly #last: Database.Statement<[], { id: number; hash: string | null }>;
  readonly #insert: Database.Statement;
  readonly #page: Database.Statement<[number, number], AuditRecord>;

  private readonly now: () => Date;
  constructor(db: Database.Database, now: () => Date = () => new Date()) {
    this.now = now;
    this.#last = db.prepare('SELECT id, hash FROM console_audit ORDER BY id DESC LIMIT 1');
    this.#insert = db.prepare(
      'INSERT INTO console_audit (id, at, who, role, action, detail, outcome, ip, prev_hash, hash) VALUES (@id, @at, @who, @role, @action, @detail, @outcome, @ip, @prev_hash, @hash)',
    );
    this.#page = db.prepare(
      'SELECT id, at, who, role, action, detail, outcome, ip FROM console_audit WHERE id < ? ORDER BY id DESC LIMIT ?',
    );
    // The last row and the new one in one write transaction: two processes on one console.db chain in turn.
    const append = db.transaction((input: AuditInput & { at: string }) => {
      const last = this.#last.get();
      const row = { ...input, id: (last?.id ?? 0) + 1 };
      const prev = last ? (last.hash ?? '') : genesisHash;
      this.#insert.run({ ...row, prev_hash: prev, hash: auditRowHash(prev, row) });
    });
    this.#append = (row) => append.immediate(row);
  }

  record(input: AuditInput): void {
    this.#append({ ...input, at: this.now().toISOString() });
  }

  /** `limit` rows older than `before` (else the newest), newest first, and where the next page starts. */
  page(limit: number, before?: number): AuditPage {
    const rows = this.#page.all(before ?? Number.MAX_SAFE_INTEGER, limit + 1);
    const records = rows.slice(0, limit).map((row) => AuditRecord.parse(row));
    return { records, older: rows.length > limit ? (records.at(-1)?.id ?? null) : null };
  }
}

export type AuditVerdict =
  | { intact: true; rows: number; head: string }
  | { intact: false; rows: number; brokenRow: number; reason: string };

/** Walks the chain from the first row: the first row whose links or contents do not hold, else the head. */
export function verifyAuditChain(db: Database.Database): AuditVerdict {
  let prev = genesisHash;
  let previousId = 0;
  let rows = 0;
  for (const raw of db
    .prepare('SELECT * FROM console_audit ORDER BY id')
    .iterate() as IterableIterator<unknown>) {
    rows++;
    const id = Number((raw as { id: unknown }).id);
    const broken = (reason: string): AuditVerdict => ({ intact: false, rows, brokenRow: id, reason });
    const parsed = ChainedRow.safeParse(raw);
    if (!parsed.success) return broken('its columns do not hold an audit row');
    const row: ChainedRow = parsed.data;
    if (row.id !== previousId + 1) return broken(`the rows before it, from ${previousId + 1}, are missing`);
    if (row.prev_hash !== prev) return broken('its link to the previous row does not match that row');
    if (row.hash !== auditRowHash(prev, row)) return broken('its contents do not match its hash');
    prev = row.hash;
    previousId = row.id;
  }
  return { intact: true, rows, head: prev };
}
