import { type AccountName, chartOfAccounts, isAccountName } from './chart-of-accounts.js';
import { LedgerValidationError } from './errors.js';
import type { AccountBalance, TrialBalance } from './ledger-port.js';

// What both ledger stores derive alike from their per-account sums: the chart's balances, the trial balance
// and one account's balance. Only the SQL that sums the lines differs between SQLite and PostgreSQL.

/** Per-account sums as a database answers them (PostgreSQL's BIGINT arrives as a string). */
export interface AccountSums {
  account: string;
  debit: number | string;
  credit: number | string;
}

/** A database total as an exact JavaScript number, or an error: never a rounded amount of money. */
export function safeTotal(value: number | string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n))
    throw new RangeError(`ledger total ${value} is outside the safe integer range`);
  return n;
}

/** Every account of the chart, in chart order, with its sums (0 for accounts never used). */
export function chartBalances(sums: readonly AccountSums[]): AccountBalance[] {
  const byAccount = new Map(sums.map((row) => [row.account, row]));
  return chartOfAccounts.map((a) => {
    const row = byAccount.get(a.name);
    const debitCents = safeTotal(row?.debit ?? 0);
    const creditCents = safeTotal(row?.credit ?? 0);
    return {
      account: a.name,
      title: a.title,
      type: a.type,
      debitCents,
      creditCents,
      balanceCents: safeTotal(debitCents - creditCents),
    };
  });
}

export function trialBalanceOf(accounts: AccountBalance[]): TrialBalance {
  const totalDebitCents = safeTotal(accounts.reduce((s, a) => s + a.debitCents, 0));
  const totalCreditCents = safeTotal(accounts.reduce((s, a) => s + a.creditCents, 0));
  return { accounts, totalDebitCents, totalCreditCents, balanced: totalDebitCents === totalCreditCents };
}

/** One account's signed balance (debit positive); an account outside the chart is refused. */
export function balanceIn(accounts: readonly AccountBalance[], account: AccountName): number {
  if (!isAccountName(account)) throw new LedgerValidationError(`unknown account ${account}`);
  return accounts.find((b) => b.account === account)?.balanceCents ?? 0;
}
