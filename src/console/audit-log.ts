import type Database from 'better-sqlite3';
import { z } from 'zod';

// Every console action (sign-in, sign-out, retry, closing the books...), who did it and when, what it was and
// how it ended; kept in console.db and shown on the console's Audit page. Rows are only ever added.

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

export class AuditLog {
  readonly #insert: Database.Statement;
  readonly #recent: Database.Statement<[number], AuditRecord>;

  constructor(
    db: Database.Database,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#insert = db.prepare(
      'INSERT INTO console_audit (at, who, role, action, detail, outcome, ip) VALUES (@at, @who, @role, @action, @detail, @outcome, @ip)',
    );
    this.#recent = db.prepare('SELECT * FROM console_audit ORDER BY id DESC LIMIT ?');
  }

  record(input: AuditInput): void {
    this.#insert.run({ ...input, at: this.now().toISOString() });
  }

  /** The newest first. */
  recent(limit = 200): AuditRecord[] {
    return this.#recent.all(limit).map((row) => AuditRecord.parse(row));
  }
}
