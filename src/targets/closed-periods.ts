import type { TargetDocument } from './target-port.js';

// A closed period never changes, in any target: no void, delete or edit of a document dated in it, and a
// correction is a new document dated in the open period. The effective lock of a target is the later of the
// ledger's closed-through day (PushContext.closedThrough) and the target's own (lockedThrough()).
// - A document dated on or before the lock is dated the day after it; its own date stays in its description.
// - A reversal is made in place (void, delete, cancel) only when the original and the reversal fall in the
//   same month and the original is after the lock; otherwise it is a reversing document dated in the open
//   period (each adapter's README, "Reversals after close", says which document and why).

/** The later of two YYYY-MM-DD days (null: none). */
export function laterOf(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a > b ? a : b;
}

/** The day after a YYYY-MM-DD day. */
export function dayAfter(day: string): string {
  const next = new Date(`${day}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** The first open day for a document dated `date` under `lock`: its own date, or the day after the lock. */
export function openDate(date: string, lock: string | null): string {
  return lock !== null && date <= lock ? dayAfter(lock) : date;
}

/** The note of a document dated out of a closed period, for targets whose document has no description. */
const notes = new WeakMap<TargetDocument, string>();

/** `(dated <own date> in booksync; books closed through <lock>)` for a document datedOpen() moved; else null. */
export function closedPeriodNote(doc: TargetDocument): string | null {
  return notes.get(doc) ?? null;
}

/**
 * The document as the target receives it under `lock`: unchanged when its date is open, else dated the day
 * after the lock with its own date kept in its description (and a reversal's reason).
 */
export function datedOpen(doc: TargetDocument, lock: string | null): TargetDocument {
  const date = openDate(doc.date, lock);
  if (date === doc.date) return doc;
  const note = `(dated ${doc.date} in booksync; books closed through ${lock})`;
  const moved: TargetDocument = {
    ...doc,
    date,
    description: `${doc.description} ${note}`,
    ...(doc.reason !== undefined ? { reason: `${doc.reason} ${note}` } : {}),
  };
  notes.set(moved, note);
  return moved;
}

/**
 * Whether a reversal may cancel its original in place (void, delete, cancel move): both in the same month,
 * the original after the lock. The original's date is the ledger's (`originalDate`), else the date the target
 * holds it under (`heldOn`); without either, never.
 */
export function reversesInPlace(doc: TargetDocument, lock: string | null, heldOn?: string | null): boolean {
  const original = doc.originalDate ?? (heldOn ? heldOn.slice(0, 10) : undefined);
  if (!original) return false;
  if (lock !== null && (original <= lock || doc.date <= lock)) return false;
  return original.slice(0, 7) === doc.date.slice(0, 7);
}

/**
 * A target's lock, read at most once a `ttlMs` (the lock moves once a month, a read costs a call of the
 * target's limits), and read again at once after a refusal for a closed period (`forget`).
 */
export class LockReader {
  #value: { lock: string | null; at: number } | null = null;
  /** The read in flight: pushes at once share one call. */
  #reading: Promise<string | null> | null = null;

  private readonly read: () => Promise<string | null>;
  private readonly ttlMs: number;
  private readonly now: () => number;
  constructor(read: () => Promise<string | null>, ttlMs = 60_000, now: () => number = Date.now) {
    this.read = read;
    this.ttlMs = ttlMs;
    this.now = now;
  }

  async get(): Promise<string | null> {
    const cached = this.#value;
    if (cached && this.now() - cached.at < this.ttlMs) return cached.lock;
    this.#reading ??= this.read()
      .then((lock) => {
        this.#value = { lock, at: this.now() };
        return lock;
      })
      .finally(() => {
        this.#reading = null;
      });
    return this.#reading;
  }

  forget(): void {
    this.#value = null;
  }
}
