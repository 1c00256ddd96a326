import { Accounts } from '../accounting/chart-of-accounts.js';
import type { BookedEntry } from '../accounting/entry.js';
import { type AccountRole, accountRoles, roleOf } from '../accounting/targets/account-mapping.js';
import type { TargetFigures } from '../accounting/targets/target-figures.js';

// The third side of the close certificate (issue 25 §4): the ledger as of the period's last day against what
// each accounting target itself reports as of that day (its trial balance and its aged receivables and
// payables, read from the target, not from booksync's index). Pure.
//
// What is compared:
// - every invoice's and bill's open amount: booksync's documents are its own at the target, so any
//   difference is a difference (a hand edit, a document missing or twice);
// - the balances of the clearing accounts booksync alone writes (Processor Clearing, Payouts In Transit,
//   Checks To Deposit, Outgoing Payments Clearing: give booksync accounts of its own for them, as the README
//   says). The other accounts (bank, receivables, revenue, expenses...) also hold the business's own entries
//   at the target, and its income and expense figures start at its fiscal year: they are shown, not compared.

/** Roles whose target account only booksync writes: their balance must equal the ledger's to the cent. */
export const comparedRoles: readonly AccountRole[] = [
  'ProcessorClearing',
  'PayoutsInTransit',
  'ChecksToDeposit',
  'OutgoingPaymentsClearing',
];

/** The ledger's own figures as of the end of a day, in the targets' terms (roles, documents). */
export interface LedgerFiguresAsOf {
  asOf: string;
  balances: Record<AccountRole, number>;
  openInvoices: Record<string, number>;
  openBills: Record<string, number>;
  /** The keys of the entries dated up to the day, per payment link and per bill (to name them in a difference). */
  entriesOf: { invoices: Map<string, string[]>; bills: Map<string, string[]> };
}

/** Sums every line of the entries dated on or before `day` (reversals are entries like any other). */
export function ledgerFiguresAsOf(entries: Iterable<BookedEntry>, day: string): LedgerFiguresAsOf {
  const balances = Object.fromEntries(accountRoles.map((r) => [r, 0])) as Record<AccountRole, number>;
  const openInvoices: Record<string, number> = {};
  const openBills: Record<string, number> = {};
  const invoices = new Map<string, string[]>();
  const bills = new Map<string, string[]>();
  const note = (map: Map<string, string[]>, id: string, key: string) => {
    const keys = map.get(id);
    if (!keys) map.set(id, [key]);
    else if (keys.at(-1) !== key) keys.push(key);
  };
  for (const entry of entries) {
    if (entry.date > day) continue;
    for (const line of entry.lines) {
      balances[roleOf(line.account)] += line.amountCents;
      const { paymentLinkId, billId } = entry.links;
      if (line.account === Accounts.AccountsReceivable && paymentLinkId) {
        openInvoices[paymentLinkId] = (openInvoices[paymentLinkId] ?? 0) + line.amountCents;
        note(invoices, paymentLinkId, entry.key);
      } else if (line.account === Accounts.AccountsPayable && billId) {
        openBills[billId] = (openBills[billId] ?? 0) - line.amountCents;
        note(bills, billId, entry.key);
      }
    }
  }
  return { asOf: day, balances, openInvoices, openBills, entriesOf: { invoices, bills } };
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
    ...compareDocuments('invoice', ledger.openInvoices, target.openInvoices, ledger.entriesOf.invoices),
    ...compareDocuments('bill', ledger.openBills, target.openBills, ledger.entriesOf.bills),
  ];
  const documents = all.filter((d) => !d.ok);
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
  entriesOf: Map<string, string[]>,
): DocumentComparison[] {
  const ids = new Set([...Object.keys(ledger), ...Object.keys(target)]);
  return [...ids]
    .sort()
    .map((id) => {
      const ledgerCents = ledger[id] ?? 0;
      const targetCents = target[id] ?? 0;
      return {
        kind,
        id,
        ledgerCents,
        targetCents,
        ok: ledgerCents === targetCents,
        entries: entriesOf.get(id) ?? [],
      };
    })
    .filter((d) => !d.ok || d.ledgerCents !== 0);
}
