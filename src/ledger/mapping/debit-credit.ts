import type { AccountName } from '../chart-of-accounts.js';
import type { EntryLine } from '../entry.js';

/** The two lines of a simple entry: Dr `debit` / Cr `credit`, both `amountCents`. */
export function debitCredit(debit: AccountName, credit: AccountName, amountCents: number): EntryLine[] {
  return [
    { account: debit, amountCents },
    { account: credit, amountCents: -amountCents },
  ];
}
