import type { BookedEntry, LedgerEntryInput, PostResult } from './entry.js';
import { isValidDate, validateEntry } from './entry.js';
import { isReversalKey, reversalKey } from './entry-key.js';
import {
  BooksAlreadyOpenError,
  BooksClosedError,
  LedgerConflictError,
  LedgerEntryNotFoundError,
  LedgerValidationError,
} from './errors.js';
import type { BooksOpening, ReverseOptions } from './ledger-port.js';
import { dayAfter } from './mapping/dates.js';

// The rules of post and reverse, the same in both ledger stores (SQLite, PostgreSQL): what a key already
// booked answers, which entry a reversal is, and what a new entry reads back as. Pure: each store reads and
// writes inside its own transaction and asks these what to do.

/**
 * A post of a key already booked: the same contents answer the booked entry ({created: false}), other
 * contents are a conflict. `anyContents`: a reversal someone else booked first is the answer whatever its
 * reason or date, as a second call of reverse() would be. `onConflict` runs before the conflict is thrown.
 */
export function repeatedPost(
  existing: BookedEntry,
  key: string,
  contentHash: string,
  options: { anyContents?: boolean; onConflict?: () => void } = {},
): PostResult {
  if (options.anyContents || existing.contentHash === contentHash) return { entry: existing, created: false };
  options.onConflict?.();
  throw new LedgerConflictError(key, existing.contentHash, contentHash);
}

/** The entry `key` names, which a reversal can reverse: it exists and is not itself a reversal. */
export function reversibleOriginal(key: string, original: BookedEntry | null): BookedEntry {
  if (!original) throw new LedgerEntryNotFoundError(key);
  if (original.reverses !== null || isReversalKey(key)) {
    throw new LedgerValidationError(`${key} is a reversal; book the entry again under a new version instead`);
  }
  return original;
}

/**
 * The reversing entry of `original` (booked under `reversalKey(key)`): its lines negated, its links kept. It is
 * never dated before the original: the original may be dated by the service's record and the reversal by
 * booksync's day (the service gives no time for some undoings, a voided debit memo's), and the service's
 * clock may run ahead of booksync's; a reversal dated the day before what it reverses would land in another
 * month, where no target may undo the original in place.
 */
export function reversalEntry(original: BookedEntry, key: string, options: ReverseOptions): LedgerEntryInput {
  if (typeof options?.reason !== 'string' || options.reason.trim() === '') {
    throw new LedgerValidationError(`reversal of ${key} needs a reason`);
  }
  const asked = validateEntry(
    {
      key: reversalKey(key),
      date: options.date,
      description: `Reversal of ${key}: ${options.reason}`,
      lines: original.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
      links: original.links,
    },
    true,
  );
  return asked.date < original.date ? { ...asked, date: original.date } : asked;
}

/** An entry just inserted, as booked (nothing reverses it yet). */
export function newlyBooked(
  entry: LedgerEntryInput,
  booked: {
    id: number;
    reverses: string | null;
    contentHash: string;
    createdAt: string;
    economicDate: string | null;
  },
): BookedEntry {
  return {
    ...(booked.economicDate !== null ? { economicDate: booked.economicDate } : {}),
    id: booked.id,
    key: entry.key,
    date: entry.date,
    description: entry.description,
    lines: entry.lines.map((l) => ({ ...l })),
    links: { ...(entry.links ?? {}) },
    reverses: booked.reverses,
    reversedBy: null,
    contentHash: booked.contentHash,
    createdAt: booked.createdAt,
  };
}

/**
 * Where an entry is booked while the books are closed through `closedThrough` (null: nothing closed): an
 * entry dated in the closed period is booked on the first open day, its own date kept as its economic date;
 * any other entry as it is. Its contents hash stays that of the entry as posted, so posting it again is the
 * same post.
 */
export function inOpenPeriod(
  entry: LedgerEntryInput,
  closedThrough: string | null,
): { entry: LedgerEntryInput; economicDate: string | null } {
  if (closedThrough === null || entry.date > closedThrough) return { entry, economicDate: null };
  return { entry: { ...entry, date: dayAfter(closedThrough) }, economicDate: entry.date };
}

/** Whether a closing through `through` may be written after `closedThrough`: only forward, days only. */
export function closingToWrite(closedThrough: string | null, through: string, reason: string): boolean {
  if (!isValidDate(through))
    throw new LedgerValidationError(`the books close through a YYYY-MM-DD day, got ${through}`);
  if (reason.trim() === '') throw new LedgerValidationError('a closing of the books needs a reason');
  if (closedThrough === null || through > closedThrough) return true;
  if (through === closedThrough) return false;
  throw new BooksClosedError(closedThrough, through);
}

export type OpeningStep = 'opened' | 'balances-booked';

/** The books' opening from its stored steps (table books_opening), or null before any backfill. */
export function booksOpeningOf(rows: readonly { step: string; opens_on: string }[]): BooksOpening | null {
  const opened = rows.find((r) => r.step === 'opened');
  if (!opened) return null;
  return { opensOn: opened.opens_on, balancesBooked: rows.some((r) => r.step === 'balances-booked') };
}

/**
 * Whether to write an opening step for `date`, given the stored steps: true to insert it, false when it is
 * there already; BooksAlreadyOpenError when the books open on another day (or, for 'balances-booked', not
 * at all), LedgerValidationError for a day that is not one.
 */
export function openingStepToWrite(
  rows: readonly { step: string; opens_on: string }[],
  step: OpeningStep,
  date: string,
): boolean {
  if (!isValidDate(date)) throw new LedgerValidationError(`the books open on a YYYY-MM-DD day, got ${date}`);
  const opening = booksOpeningOf(rows);
  if (step === 'opened') {
    if (opening && opening.opensOn !== date) throw new BooksAlreadyOpenError(opening.opensOn, date);
    return opening === null;
  }
  if (!opening || opening.opensOn !== date)
    throw new BooksAlreadyOpenError(opening?.opensOn ?? 'no day', date);
  return !opening.balancesBooked;
}
