import { balanceIn, trialBalanceOf } from './account-balances.js';
import type { AccountName } from './chart-of-accounts.js';
import type { AccountBalance, BookedEntry, TrialBalance } from './ledger-port.js';

/**
 * The reads of the ledger port that both stores (SQLite, PostgreSQL) answer alike from two of their own,
 * get() and balances(): whether an entry is reversed, the trial balance, one account's balance.
 */
export abstract class DerivedLedgerReads {
  abstract get(key: string): Promise<BookedEntry | null>;
  abstract balances(): Promise<AccountBalance[]>;

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
