import { balanceIn, trialBalanceOf } from './account-balances.js';
import type { AccountName } from './chart-of-accounts.js';
import { LedgerValidationError } from './errors.js';
import type { AccountBalance, BookedEntry, BooksClosing, BooksOpening, TrialBalance } from './ledger-port.js';
import type { OpeningStep } from './posting-rules.js';

/**
 * The parts of the ledger port that both stores (SQLite, PostgreSQL) answer alike from a few of their own:
 * from get() and balances(), whether an entry is reversed, the trial balance, one account's balance; from
 * booksOpening() and writeOpeningStep(), the books' opening (backfill).
 */
/**
 * How long a ledger keeps a "the books are not open" answer. A backfill that opens the books waits twice this
 * before its first page (src/flows/backfill/activities.ts), so every worker sees the opening before any page is summed.
 */
export const booksOpeningCacheMs = 5_000;

/** A page of entries()'s reads: 1,000 by default, a whole number from 1 to 100,000. */
export function entryPageSize(options: { pageSize?: number }): number {
  const size = options.pageSize ?? 1_000;
  if (!Number.isInteger(size) || size < 1 || size > 100_000) {
    throw new LedgerValidationError(
      `entries: pageSize must be a whole number from 1 to 100,000, got ${size}`,
    );
  }
  return size;
}

export abstract class DerivedLedgerReads {
  abstract get(key: string): Promise<BookedEntry | null>;
  abstract balances(): Promise<AccountBalance[]>;
  abstract booksOpening(): Promise<BooksOpening | null>;
  abstract booksClosings(): Promise<BooksClosing[]>;
  abstract entries(options?: { pageSize?: number }): AsyncIterable<BookedEntry>;
  /** Writes the step in one transaction if it is not there (posting-rules' openingStepToWrite decides). */
  protected abstract writeOpeningStep(step: OpeningStep, date: string): Promise<boolean>;
  #opensOn: string | null = null;
  /** When "not open" was last read: every sync asks, so the answer is kept briefly (see booksOpeningCacheMs). */
  #notOpenAt = Number.NEGATIVE_INFINITY;

  async booksOpenOn(): Promise<string | null> {
    // Set once and never changed (the stores refuse updates): a found day is kept for the process. "Not
    // open" is kept for booksOpeningCacheMs: every sync asks, and a backfill waits that long after opening.
    if (this.#opensOn !== null || Date.now() - this.#notOpenAt < booksOpeningCacheMs) return this.#opensOn;
    this.#opensOn = (await this.booksOpening())?.opensOn ?? null;
    if (this.#opensOn === null) this.#notOpenAt = Date.now();
    return this.#opensOn;
  }

  async openBooks(date: string): Promise<{ opensOn: string; created: boolean }> {
    const created = await this.writeOpeningStep('opened', date);
    this.#opensOn = date;
    return { opensOn: date, created };
  }

  async booksClosedThrough(): Promise<string | null> {
    return (await this.booksClosings()).at(-1)?.through ?? null;
  }

  async markOpeningBalancesBooked(date: string): Promise<void> {
    await this.writeOpeningStep('balances-booked', date);
  }

  async allEntries(): Promise<BookedEntry[]> {
    const all: BookedEntry[] = [];
    for await (const entry of this.entries()) all.push(entry);
    return all;
  }

  async isReversed(key: string): Promise<boolean> {
    const entry = await this.get(key);
    return entry?.reversedBy != null;
  }

  async trialBalance(): Promise<TrialBalance> {
    return trialBalanceOf(await this.balances());
  }

  async balanceOf(account: AccountName): Promise<number> {
    return balanceIn(await this.balances(), account);
  }
}
