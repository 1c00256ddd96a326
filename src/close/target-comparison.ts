import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry } from '../ledger/entry.js';
import { type AccountRole, accountRoles, roleOf } from '../targets/account-mapping.js';
import type { TargetFigures } from '../targets/target-figures.js';

// The third side of the close certificate: the ledger as of the period's last day against what
// each accounting target itself reports as of that day (its trial balance and its aged receivables and
// payables, read from the target, not from booksync's index). Pure.
//
// What is compared:
// - every invoice's and bill's open amount: booksync's documents are its own at the target, so any
//   difference is a difference (a hand edit, a document missing or twice);
// - the balances of the clearing accounts booksync alone writes (Processor Clearing, Payouts In Transit,
//   Checks To Deposit, Outgoing Payments Clearing, Unapplied Cash: give booksync accounts of its own for them, as docs/targets/README.md
//   says). The other accounts (bank, receivables, revenue, expenses...) also hold the business's own entries
//   at the target, and its income and expense figures start at its fiscal year: they are shown, not compared.

/** Roles whose target account only booksync writes: their balance must equal the ledger's to the cent. */
export const comparedRoles: readonly AccountRole[] = [
  'ProcessorClearing',
  'PayoutsInTransit',
  'ChecksToDeposit',
  'OutgoingPaymentsClearing',
  'UnappliedCash',
];

/** The ledger's own figures as of the end of a day, in the targets' terms (roles, documents). */
export interface LedgerFiguresAsOf {
  asOf: string;
  balances: Record<AccountRole, number>;
  openInvoices: Record<string, number>;
  openBills: Record<string, number>;
  /** The keys of the entries dated up to the day of a payment link or bill (to name them in a difference). */
  entriesOf(kind: 'invoice' | 'bill', id: string): string[];
}

/** Sums every line of the entries dated on or before `day` (reversals are entries like any other). One pass. */
export function ledgerFiguresAsOf(entries: readonly BookedEntry[], day: string): LedgerFiguresAsOf {
  const byAccount = new Map<string, number>();
  const openInvoices: Record<string, number> = {};
  const openBills: Record<string, number> = {};
  for (const entry of entries) {
    if (entry.date > day) continue;
    const { paymentLinkId, billId } = entry.links;
    for (const line of entry.lines) {
      byAccount.set(line.account, (byAccount.get(line.account) ?? 0) + line.amountCents);
      if (paymentLinkId && line.account === Accounts.AccountsReceivable) {
        openInvoices[paymentLinkId] = (openInvoices[paymentLinkId] ?? 0) + line.amountCents;
      } else if (billId && line.account === Accounts.AccountsPayable) {
        openBills[billId] = (openBills[billId] ?? 0) - line.amountCents;
      }
    }
  }
  const balances = Object.fromEntries(accountRoles.map((r) => [r, 0])) as Record<AccountRole, number>;
  for (const [account, cents] of byAccount)
    balances[roleOf(account as BookedEntry['lines'][number]['account'])] += cents;
  return {
    asOf: day,
    balances,
    openInvoices,
    openBills,
    // Only asked for the few documents that differ: a second look at the entries then, not a list per document.
    entriesOf: (kind, id) =>
      entries
        .filter(
          (e) =>
            e.date <= day &&
            (kind === 'invoice' ? e.links.paymentLinkId === id : e.links.billId === id) &&
            e.lines.some(
              (l) =>
                l.account === (kind === 'invoice' ? Accounts.AccountsReceivable : Accounts.AccountsPayable),
            ),
        )
        .map((e) => e.key),
  };
}

export interface AccountComparison {
  role: AccountRole;
  ledgerCents: number;
  targetCents: number;
  /** false: shown for reading, not compared (the account also holds the business's own entries). */
  compared: boolean;
  ok: boolean;
}

export interface DocumentComparison {
  kind: 'invoice' | 'bill';
  /** The payment link id (invoice) or bill id; for a document only the target has, what the target knows of it. */
  id: string;
  ledgerCents: number;
  targetCents: number;
  ok: boolean;
  /** The ledger's entries of the document dated up to the day. */
  entries: string[];
}

export interface TargetComparison {
  target: string;
  asOf: string;
  accounts: AccountComparison[];
  /** Every document whose open amount differs (the agreeing ones are only counted: the certificate stays small). */
  documents: DocumentComparison[];
  /** Documents open at either side whose open amounts agree. */
  agreeingDocuments: number;
  ok: boolean;
  /** One line per difference, for people. */
  problems: string[];
}

/** The ledger against one target's own figures (`targetName`'s), as of the same day. */
export function compareWithTarget(
  targetName: string,
  ledger: LedgerFiguresAsOf,
  target: TargetFigures,
): TargetComparison {
  if (ledger.asOf !== target.asOf) {
    throw new RangeError(`the ledger's figures are of ${ledger.asOf}, the target's of ${target.asOf}`);
  }
  const problems: string[] = [];
  const accounts = accountRoles
    .filter((role) => target.balances[role] !== undefined || ledger.balances[role] !== 0)
    .map((role): AccountComparison => {
      const ledgerCents = ledger.balances[role];
      const targetCents = target.balances[role] ?? 0;
      const compared = comparedRoles.includes(role);
      return { role, ledgerCents, targetCents, compared, ok: !compared || ledgerCents === targetCents };
    });
  for (const a of accounts) {
    if (!a.ok)
      problems.push(
        `${targetName}: ${a.role} as of ${target.asOf}: ledger ${a.ledgerCents} cents, target ${a.targetCents} cents`,
      );
  }
  const all = [
    ...compareDocuments('invoice', ledger.openInvoices, target.openInvoices),
    ...compareDocuments('bill', ledger.openBills, target.openBills),
  ];
  const documents = all.filter((d) => !d.ok).map((d) => ({ ...d, entries: ledger.entriesOf(d.kind, d.id) }));
  for (const d of documents) {
    if (d.ok) continue;
    const entries = d.entries.length ? ` (ledger entries: ${d.entries.join(', ')})` : '';
    problems.push(
      `${targetName}: ${d.kind} ${d.id} open as of ${target.asOf}: ledger ${d.ledgerCents} cents, target ${d.targetCents} cents${entries}`,
    );
  }
  return {
    target: targetName,
    asOf: target.asOf,
    accounts,
    documents,
    agreeingDocuments: all.length - documents.length,
    ok: problems.length === 0,
    problems,
  };
}

function compareDocuments(
  kind: 'invoice' | 'bill',
  ledger: Record<string, number>,
  target: Record<string, number>,
): DocumentComparison[] {
  const out: DocumentComparison[] = [];
  for (const id of new Set([...Object.keys(ledger), ...Object.keys(target)])) {
    const ledgerCents = ledger[id] ?? 0;
    const targetCents = target[id] ?? 0;
    if (ledgerCents === 0 && targetCents === 0) continue;
    out.push({ kind, id, ledgerCents, targetCents, ok: ledgerCents === targetCents, entries: [] });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
