import { z } from 'zod';

// Building blocks shared by every resource schema. Spec part 1 conventions: money is integer cents,
// dates are YYYY-MM-DD, date-times ISO 8601, identifiers opaque strings (decision “Identifiers”).

/** Money in integer cents. z.int() already rejects fractions and integers beyond Number.MAX_SAFE_INTEGER. */
export const cents = z.int();

/** An amount a caller asks to move or record: at least 1 cent (part 8, decisions “Record an external payment”, “Debit memos”, “Refund amount”). */
export const positiveCents = cents.min(1);

/** An amount that cannot be negative (a requested total, a limit). */
export const nonNegativeCents = cents.min(0);

/** YYYY-MM-DD, a real calendar date. */
export const isoDate = z.iso.date();

/** ISO 8601 date-time. decision “Time formats” promises UTC with milliseconds; an offset is accepted from the real service. */
export const isoDateTime = z.iso.datetime({ offset: true });

/** Opaque identifier (decision “Identifiers”): never parsed, only compared. */
export const id = z.string().min(1);

/** Caller's own id for money or a memo: at most 255 characters (part 8, decisions “Record an external payment”, “Debit memos”). */
export const externalReferenceId = z.string().min(1).max(255);

/** feePassthroughPercent: integer 0-100 (part 8). */
export const percent = z.int().min(0).max(100);

/**
 * An enum the spec leaves open (decision “Unknown enum values from the real service”): the known values are listed for documentation and switching, and any
 * other non-empty string from the real service is kept as is.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.union([z.enum(values), z.string().min(1)]) as unknown as z.ZodType<
    T[number] | (string & {}),
    T[number] | (string & {})
  >;
}
