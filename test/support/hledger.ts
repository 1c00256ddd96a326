import { execFile, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AccountName } from '../../src/ledger/chart-of-accounts.js';
import {
  closingAssertions,
  type HledgerAssertion,
  toHledgerJournal,
} from '../../src/ledger/hledger-export.js';
import type { LedgerPort } from '../../src/ledger/ledger-port.js';

// hledger as the independent check of booksync's books: the ledger exported as a journal whose closing
// balances are asserted, checked by `hledger check -s`.

type Books = Pick<LedgerPort, 'allEntries' | 'balances'>;

const hledgerAvailable = spawnSync('hledger', ['--version']).status === 0;

/**
 * The ledger as an hledger journal with closing assertions from its own balances (closingAssertions) and,
 * when given, from `expected` balances computed elsewhere, both after the last entry's date.
 */
async function assertedJournal(
  ledger: Books,
  expected: Partial<Record<AccountName, number>>,
): Promise<string> {
  const entries = await ledger.allEntries();
  const lastDate =
    entries
      .map((e) => e.date)
      .sort()
      .at(-1) ?? '1970-01-01';
  const expectedAssertions: HledgerAssertion[] = Object.entries(expected).map(([account, cents]) => ({
    account: account as AccountName,
    date: lastDate,
    balanceCents: cents ?? 0,
  }));
  return toHledgerJournal(entries, {
    assertions: [...closingAssertions(await ledger.balances(), lastDate), ...expectedAssertions],
  });
}

/**
 * Runs `hledger -f <journal> check -s` on the asserted journal written into `dir`; rejects when hledger
 * finds an unbalanced transaction or a failing assertion. Answers the journal, its file and hledger's
 * balance report.
 */
export async function hledgerCheck(
  ledger: Books,
  dir: string,
  expected: Partial<Record<AccountName, number>> = {},
): Promise<{ journal: string; file: string; balanceReport: string }> {
  const journal = await assertedJournal(ledger, expected);
  const file = path.join(dir, `books-${Date.now()}-${Math.random().toString(36).slice(2, 6)}.journal`);
  writeFileSync(file, journal);
  const run = promisify(execFile);
  await run('hledger', ['-f', file, 'check', '-s']);
  const { stdout } = await run('hledger', ['-f', file, 'bal', '--flat', '--no-total', '-E']);
  return { journal, file, balanceReport: stdout };
}

/** `hledger check -s` over the asserted journal on stdin; throws with hledger's output and the journal. */
export async function checkWithHledger(ledger: Books): Promise<void> {
  if (!hledgerAvailable) throw new Error('hledger is not installed');
  const journal = await assertedJournal(ledger, {});
  const run = spawnSync('hledger', ['-f', '-', 'check', '-s'], { input: journal, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`hledger check -s failed:\n${run.stderr}\n${journal}`);
}
