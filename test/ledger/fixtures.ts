import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { EntryLinks, LedgerEntryInput } from '../../src/ledger/entry.js';

/** A balanced two-line entry: Dr `debit` / Cr `credit` for `amountCents`. */
export function twoLine(
  key: string,
  amountCents: number,
  overrides: Partial<LedgerEntryInput> & {
    debit?: AccountName;
    credit?: AccountName;
    links?: EntryLinks;
  } = {},
): LedgerEntryInput {
  const { debit = Accounts.ProcessorClearing, credit = Accounts.AccountsReceivable, ...rest } = overrides;
  return {
    key,
    date: '2026-01-02',
    description: `Entry ${key}`,
    lines: [
      { account: debit, amountCents },
      { account: credit, amountCents: -amountCents },
    ],
    ...rest,
  };
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'booksync-ledger-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function sumOfLines(entry: { lines: readonly { amountCents: number }[] }): number {
  return entry.lines.reduce((s, l) => s + l.amountCents, 0);
}
