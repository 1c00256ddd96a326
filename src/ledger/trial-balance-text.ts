import type { TrialBalance } from './ledger-port.js';
import { formatUsd } from './money.js';

/** The trial balance as a terminal table: accounts that moved, then the totals. */
export function trialBalanceText(trial: TrialBalance): string[] {
  const row = (name: string, a: string, b: string, c: string) =>
    `${name.padEnd(34)}${a.padStart(14)}${b.padStart(14)}${c.padStart(14)}`;
  return [
    row('account', 'debit', 'credit', 'balance'),
    ...trial.accounts
      .filter((account) => account.debitCents !== 0 || account.creditCents !== 0)
      .map((account) =>
        row(
          account.title,
          formatUsd(account.debitCents),
          formatUsd(account.creditCents),
          formatUsd(account.balanceCents),
        ),
      ),
    row(
      'total',
      formatUsd(trial.totalDebitCents),
      formatUsd(trial.totalCreditCents),
      trial.balanced ? 'balanced' : 'UNBALANCED',
    ),
  ];
}
