import { writeFileSync } from 'node:fs';
import type { EntryLinks } from '../../ledger/entry.js';
import { closingAssertions, toHledgerJournal } from '../../ledger/hledger-export.js';
import { formatUsd } from '../../ledger/money.js';
import { bookingReport } from '../../ledger/reports.js';
import { trialBalanceText } from '../../ledger/trial-balance-text.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { type Command, CommandError } from '../command.js';

const scopes: Record<string, keyof EntryLinks> = {
  link: 'paymentLinkId',
  payment: 'paymentId',
  disbursement: 'disbursementId',
  'check-deposit': 'checkDepositId',
  'bill-payment': 'billPaymentId',
};

export const ledgerCommand: Command = {
  summary: 'read the ledger: trial balance, what is booked for an object, hledger export',
  usage: `booksync ledger trial-balance [--json]
booksync ledger receivables|payables [--json]
booksync ledger link|payment|disbursement|check-deposit|bill-payment <id> [--json]
booksync ledger export [--out FILE] [--assert-closing YYYY-MM-DD]

Reads LEDGER_URL (PostgreSQL) or else LEDGER_DB (default BOOKSYNC_DATA_DIR/ledger.db); safe while the
worker runs.
The export is an hledger journal: 'hledger -f FILE check -s' verifies it independently.`,
  async run({ args, settings, out }) {
    const [what, ...rest] = args[0] === '--json' ? ['trial-balance', ...args] : args;
    const store = await openLedgerStore(settings);
    const ledger = store.ledger;
    try {
      if (what === 'trial-balance' || what === undefined) {
        const trial = await ledger.trialBalance();
        if (rest.includes('--json')) out(JSON.stringify(trial, null, 2));
        else for (const line of trialBalanceText(trial)) out(line);
        return trial.balanced ? 0 : 1;
      }
      if (what === 'receivables' || what === 'payables') {
        // What each invoice (payment link) or bill still owes, and to or by whom.
        const items = await ledger.openItems(what === 'receivables' ? 'receivable' : 'payable');
        if (rest.includes('--json')) {
          out(JSON.stringify({ [what]: items }, null, 2));
          return 0;
        }
        const document = what === 'receivables' ? 'payment link' : 'bill';
        for (const item of items) {
          out(
            `${(item.documentId ?? `(no ${document})`).padEnd(28)}${(item.counterpartyId ?? '-').padEnd(28)}${formatUsd(item.openCents).padStart(14)}`,
          );
        }
        out(`${'total'.padEnd(56)}${formatUsd(items.reduce((s, i) => s + i.openCents, 0)).padStart(14)}`);
        return 0;
      }
      if (what === 'export') {
        const outIndex = rest.indexOf('--out');
        const assertIndex = rest.indexOf('--assert-closing');
        const entries = await ledger.allEntries();
        const assertions =
          assertIndex >= 0
            ? closingAssertions(
                await ledger.balances(),
                requireArg(rest[assertIndex + 1], '--assert-closing'),
              )
            : [];
        const journal = toHledgerJournal(entries, { assertions });
        if (outIndex >= 0) writeFileSync(requireArg(rest[outIndex + 1], '--out'), journal);
        else out(journal);
        return 0;
      }
      const field = what ? scopes[what] : undefined;
      if (!field) throw new CommandError(`unknown ledger view '${what}': see 'booksync ledger --help'`);
      const id = requireArg(rest[0], what!);
      const report = bookingReport(await ledger.entriesFor({ [field]: id }));
      if (rest.includes('--json')) {
        out(JSON.stringify(report, null, 2));
        return 0;
      }
      if (report.items.length === 0) out(`nothing booked for ${what} ${id}`);
      for (const item of report.items) {
        const economic = item.economicDate ? ` (economic date ${item.economicDate})` : '';
        out(`${item.date}${economic}  ${item.key}  [${item.status}]  ${item.description}`);
        for (const line of item.lines)
          out(`    ${line.account.padEnd(40)}${formatUsd(line.amountCents).padStart(14)}`);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};

function requireArg(value: string | undefined, name: string): string {
  if (!value) throw new CommandError(`${name} needs a value`);
  return value;
}
