import { balanceIn, trialBalanceOf } from './account-balances.js';
import type { AccountName } from './chart-of-accounts.js';
import type { AccountBalance, BookedEntry, BooksOpening, TrialBalance } from './ledger-port.js';
import type { OpeningStep } from './posting-rules.js';

/**
 * The parts of the ledger port that both stores (SQLite, PostgreSQL) answer alike from a few of their own:
 * from get() and balances(), whether an entry is reversed, the trial balance, one account's balance; from
 * booksOpening() and writeOpeningStep(), the books' opening (backfill).
 */
export abstract class DerivedLedgerReads {
  abstract get(key: string): Promise<BookedEntry | null>;
  abstract balances(): Promise<AccountBalance[]>;
  abstract booksOpening(): Promise<BooksOpening | null>;
  /** Writes the step in one transaction if it is not there (posting-rules' openingStepToWrite decides). */
  protected abstract writeOpeningStep(step: OpeningStep, date: string): Promise<boolean>;
  #opensOn: string | null = null;

  async booksOpenOn(): Promise<string | null> {
    // Set once and never changed (the stores refuse updates): a found day is kept for the process.
    this.#opensOn ??= (await this.booksOpening())?.opensOn ?? null;
    return this.#opensOn;
  }

  async openBooks(date: string): Promise<{ opensOn: string; created: boolean }> {
    const created = await this.writeOpeningStep('opened', date);
    this.#opensOn = date;
    return { opensOn: date, created };
  }

  async markOpeningBalancesBooked(date: string): Promise<void> {
    await this.writeOpeningStep('balances-booked', date);
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
