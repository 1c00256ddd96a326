import {
  type AccountName,
  type AccountType,
  accountDefinition,
  chartOfAccounts,
} from './chart-of-accounts.js';
import { type BookedEntry, isValidDate, linkFields } from './entry.js';
import { LedgerValidationError } from './errors.js';
import type { AccountBalance } from './ledger-port.js';
import { formatUsd } from './money.js';

// The books as an hledger journal, so an independent tool can check them: `hledger -f books.journal
// check -s` (accounts and commodity declared, every transaction balanced, every assertion holding) and
// `hledger -f books.journal bal` (balances to compare with the embedded trial balance).

/** "After everything dated `date`, `account` holds exactly `balanceCents`" (debit positive). */
export interface HledgerAssertion {
  account: AccountName;
  date: string;
  balanceCents: number;
}

export interface HledgerExportOptions {
  /** Balance assertions, written as zero-amount transactions at the end of their date. */
  assertions?: readonly HledgerAssertion[];
}

const hledgerType: Record<AccountType, string> = {
  asset: 'A',
  liability: 'L',
  equity: 'E',
  income: 'R',
  expense: 'X',
};
const INDENT = '    ';
const ACCOUNT_WIDTH = 44;

export function toHledgerJournal(
  entries: readonly BookedEntry[],
  options: HledgerExportOptions = {},
): string {
  const out: string[] = [
    '; booksync ledger export: amounts in USD, from integer cents',
    'commodity $1000.00',
    '',
  ];
  for (const a of chartOfAccounts) {
    out.push(`account ${a.name}  ; type:${hledgerType[a.type]}, title:${a.title}`);
  }
  out.push('');

  // hledger checks assertions in date order, then file order within a date: sorting entries by date and
  // placing each assertion after the last entry of its date gives it the meaning "at the end of that day".
  const sorted = [...entries].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id - b.id));
  const assertions = [...(options.assertions ?? [])].sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : 0,
  );
  for (const assertion of assertions) {
    if (!isValidDate(assertion.date)) throw new LedgerValidationError(`assertion date ${assertion.date}`);
    accountDefinition(assertion.account);
  }
  let next = 0;
  const flushAssertionsBefore = (date: string | null) => {
    while (next < assertions.length) {
      const assertion = assertions[next] as HledgerAssertion;
      if (date !== null && assertion.date >= date) return;
      out.push(...assertionTransaction(assertion), '');
      next++;
    }
  };
  for (const entry of sorted) {
    flushAssertionsBefore(entry.date);
    out.push(...transaction(entry), '');
  }
  flushAssertionsBefore(null);
  return out.join('\n');
}

/** Assertions that every account ends `date` at its embedded balance: hledger re-derives every figure. */
export function closingAssertions(balances: readonly AccountBalance[], date: string): HledgerAssertion[] {
  return balances.map((b) => ({ account: b.account, date, balanceCents: b.balanceCents }));
}

function transaction(entry: BookedEntry): string[] {
  const tags = [`key:${entry.key}`];
  if (entry.reverses) tags.push(`reverses:${entry.reverses}`);
  // Booked on the first open day after a closed period: when the money really moved.
  if (entry.economicDate) tags.push(`economic-date:${entry.economicDate}`);
  for (const field of linkFields) {
    const value = entry.links[field];
    if (value !== undefined) tags.push(`${field}:${value}`);
  }
  const lines = [`${entry.date} ${oneLine(entry.description)}  ; ${tags.join(', ')}`];
  for (const line of entry.lines) {
    const memo = line.memo ? `  ; ${oneLine(line.memo)}` : '';
    lines.push(`${INDENT}${line.account.padEnd(ACCOUNT_WIDTH)}  ${formatUsd(line.amountCents)}${memo}`);
  }
  return lines;
}

function assertionTransaction(assertion: HledgerAssertion): string[] {
  return [
    `${assertion.date} balance assertion  ; assertion:${assertion.account}`,
    `${INDENT}${assertion.account.padEnd(ACCOUNT_WIDTH)}  $0.00 = ${formatUsd(assertion.balanceCents)}`,
  ];
}

// A ';' would start a comment mid-description; validation already rejects line breaks.
function oneLine(text: string): string {
  return text.replace(/;/g, ',').replace(/[\r\n]+/g, ' ');
}
