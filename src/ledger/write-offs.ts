import { z } from 'zod';
import { LedgerValidationError } from './errors.js';

// The business's write-offs of what a payment link still owes (`booksync link write-off`): its intent to
// give up on a receivable it cannot collect, kept in the ledger's store before the link's amount is lowered
// at the service. The lowering itself reaches the books as the link's invoice adjustment (mapping/invoice.ts),
// from whichever flow fetches the link first; what a recorded write-off covers of it is Bad Debt (an
// expense), not Discounts and Write-offs (a price concession). A write-off whose lowering never reached the
// service is withdrawn: it covers nothing.

/** A write-off as the command asks it; a blank reason is none. */
export const WriteOffInput = z.object({
  /** The command's id: the same write-off asked again is recorded once. */
  id: z
    .string()
    .min(1, 'a write-off needs an id of 1 to 200 characters')
    .max(200, 'a write-off needs an id of 1 to 200 characters'),
  paymentLinkId: z.string().min(1, 'a write-off needs its payment link'),
  /** What was left to pay when it was written off: the lowering of the link's own amount it asks for. */
  amountCents: z
    .number()
    .int('amountCents must be whole cents above 0')
    .positive('amountCents must be whole cents above 0')
    .max(Number.MAX_SAFE_INTEGER, 'amountCents must be whole cents above 0'),
  reason: z
    .string()
    .max(500, 'the reason is at most 500 characters')
    .nullable()
    .transform((reason) => (reason === '' ? null : reason)),
});
export type WriteOffInput = z.input<typeof WriteOffInput>;

export interface WriteOff extends WriteOffInput {
  /** ISO date-time it was recorded. */
  recordedAt: string;
  /** ISO date-time it was withdrawn (the service never lowered the link), or null. */
  withdrawnAt: string | null;
}

export interface WriteOffRecorded {
  writeOff: WriteOff;
  /** false when the same write-off (same id, same contents) was recorded already. */
  created: boolean;
}

/** A write-off of this id is recorded already with other contents. */
export class WriteOffConflictError extends Error {
  override readonly name = 'WriteOffConflictError';
  readonly id: string;
  constructor(id: string) {
    super(`write-off ${id} is recorded already with other contents`);
    this.id = id;
  }
}

/** The input checked (a LedgerValidationError naming what is wrong), its blank reason none. */
export function validateWriteOff(input: WriteOffInput): z.output<typeof WriteOffInput> {
  const parsed = WriteOffInput.safeParse(input);
  if (parsed.success) return parsed.data;
  const id = typeof input?.id === 'string' && input.id !== '' ? `write-off ${input.id}: ` : '';
  throw new LedgerValidationError(`${id}${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
}

/** The same write-off as recorded: a repeat of the command, or another one under the same id. */
export function sameWriteOff(recorded: WriteOff, input: WriteOffInput): boolean {
  return (
    recorded.paymentLinkId === input.paymentLinkId &&
    recorded.amountCents === input.amountCents &&
    recorded.reason === input.reason
  );
}

/** What the link's live write-offs (not withdrawn) give up in all. */
export function writtenOffCents(writeOffs: readonly Pick<WriteOff, 'amountCents' | 'withdrawnAt'>[]): number {
  return writeOffs.filter((w) => w.withdrawnAt === null).reduce((sum, w) => sum + w.amountCents, 0);
}

/** A row of either store as a WriteOff. */
export function writeOffFromRow(row: {
  id: string;
  payment_link_id: string;
  amount_cents: number | string;
  reason: string | null;
  recorded_at: string;
  withdrawn_at: string | null;
}): WriteOff {
  return {
    id: row.id,
    paymentLinkId: row.payment_link_id,
    amountCents: Number(row.amount_cents),
    reason: row.reason,
    recordedAt: row.recorded_at,
    withdrawnAt: row.withdrawn_at,
  };
}

/** SQLite's table (migrations.ts); PostgreSQL's is the same in its types (postgres-migrations.ts). */
export const sqliteWriteOffsDdl = `
CREATE TABLE write_offs (
  id TEXT PRIMARY KEY,
  payment_link_id TEXT NOT NULL,
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  reason TEXT,
  recorded_at TEXT NOT NULL,
  withdrawn_at TEXT
) STRICT;
CREATE INDEX write_offs_by_link ON write_offs (payment_link_id);
CREATE TRIGGER write_offs_withdrawn_once BEFORE UPDATE ON write_offs
WHEN OLD.withdrawn_at IS NOT NULL OR NEW.withdrawn_at IS NULL OR NEW.id IS NOT OLD.id
  OR NEW.payment_link_id IS NOT OLD.payment_link_id OR NEW.amount_cents IS NOT OLD.amount_cents
  OR NEW.reason IS NOT OLD.reason OR NEW.recorded_at IS NOT OLD.recorded_at
BEGIN SELECT RAISE(ABORT, 'ledger: a write-off is kept as recorded; it is only withdrawn, once'); END;
CREATE TRIGGER write_offs_kept BEFORE DELETE ON write_offs
BEGIN SELECT RAISE(ABORT, 'ledger: a write-off is kept as recorded; it is only withdrawn, once'); END;
`;

export const postgresWriteOffsDdl = `
CREATE TABLE write_offs (
  id TEXT PRIMARY KEY,
  payment_link_id TEXT NOT NULL,
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0 AND amount_cents <= 9007199254740991),
  reason TEXT,
  recorded_at TEXT NOT NULL,
  withdrawn_at TEXT
);
CREATE INDEX write_offs_by_link ON write_offs (payment_link_id);
CREATE FUNCTION ledger_write_offs_withdrawn_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.withdrawn_at IS NOT NULL OR NEW.withdrawn_at IS NULL
    OR NEW.id IS DISTINCT FROM OLD.id OR NEW.payment_link_id IS DISTINCT FROM OLD.payment_link_id
    OR NEW.amount_cents IS DISTINCT FROM OLD.amount_cents OR NEW.reason IS DISTINCT FROM OLD.reason
    OR NEW.recorded_at IS DISTINCT FROM OLD.recorded_at THEN
    RAISE EXCEPTION 'ledger: a write-off is kept as recorded; it is only withdrawn, once'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER write_offs_withdrawn_once BEFORE UPDATE ON write_offs
  FOR EACH ROW EXECUTE FUNCTION ledger_write_offs_withdrawn_once();
CREATE TRIGGER write_offs_kept BEFORE DELETE ON write_offs
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER write_offs_no_truncate BEFORE TRUNCATE ON write_offs
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
`;
