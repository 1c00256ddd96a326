import type { AccountRole } from '../account-mapping.js';
import {
  addOpen,
  balancesByRole,
  checkedDay,
  type DocumentOwner,
  ownerOf,
  type TargetFigures,
} from '../target-figures.js';
import { centsOf, dateOf, type TrytonDecimal, type TrytonRpc } from './json-rpc.js';

// Tryton's own figures as of a day (README "Tryton: figures as of a day"), read with Tryton's own
// computations (trytond 8.2, modules account and account_invoice), never from booksync's index:
// - balances: `account.account`'s `balance` read under the context {date: <day>, posted: true}. Tryton's
//   MoveLine.query_get then takes the posted moves of the fiscal year holding the day dated on or before it,
//   and Account._cumulate adds the earlier years: a closed year through its deferrals (balance-sheet accounts
//   only: income and expense accounts, not deferral, start again at each closed year), an open one through
//   its own lines. So balance-sheet roles are cumulative, as the ledger's, and income and expense roles are
//   what Tryton's trial balance shows: since the start of the fiscal year after the last closed one. A day no
//   fiscal year of Tryton's holds has no figure in Tryton (query_get reads nothing): refused, not read as 0.
// - open amounts: the move lines on the mapped receivable and payable accounts that Tryton's own Aged Balance
//   (account.aged_balance, table_query) counts as of the day: moves dated on or before it, not reconciled or
//   reconciled after it (a reconciliation is dated on its latest line, so a later payment or reconciliation
//   does not count), of posted moves (as the balances: a draft is not in the books yet). The Aged Balance
//   sums them per party; here each line goes to the document it belongs to, as Tryton's own amount to pay
//   does (an invoice's lines to pay are its move's receivable/payable lines, its payment lines are the lines
//   added to it, `invoice_payment`): the invoice's `comment` (booksync-link:<id> / booksync-bill:<id>) names
//   the link or bill, so an invoice, its debit memos, refund-reopen invoices and credit notes add up under
//   one link. A line of no invoice (a reversal after close's new receivable line, open on the party; a payment
//   booksync could not add to an invoice) goes by its move's description: the marker's key and the owner note
//   (ownerOf), else by the line it reverses (its origin). Receivable lines count debit − credit, payable ones
//   credit − debit (what the vendor is owed, positive).
// Four to six calls whatever the size of the books: the fiscal year, one read of the accounts, one search_read
// of the open lines (their invoice and move read along, dotted fields), one read of the invoices of those
// lines' moves, and, when some line has no owner yet, one read of the lines they reverse (and their invoices).

/** How many ids one read asks for. */
const ID_CHUNK = 1000;

interface OpenLine {
  id: number;
  account: number;
  debit: TrytonDecimal;
  credit: TrytonDecimal;
  origin: string | null;
  invoice_payment: number | null;
  'invoice_payment.'?: InvoiceRow | null;
  move: number;
  'move.'?: { origin: string | null; description: string | null } | null;
}

interface InvoiceRow {
  id: number;
  comment: string | null;
  description: string | null;
}

/** How a document at Tryton is known when its owner is not: its marker's key, else `<model>:<id>`. */
type Owned = { owner: DocumentOwner | null; fallback: string };

/** The entry key in a booksync description (`booksync:{key} {hash}...`), or null. */
export function markerKeyOf(description: string | null | undefined): string | null {
  return /^booksync:(\S+) /.exec(description ?? '')?.[1] ?? null;
}

/** The owner of a booksync invoice: its comment's tag, else its marker's key and note. */
export function invoiceOwner(invoice: InvoiceRow): Owned {
  const tag = /^booksync-(link|bill):(\S+)/.exec(invoice.comment ?? '');
  const key = markerKeyOf(invoice.description);
  const fallback = key ?? `account.invoice:${invoice.id}`;
  if (tag?.[2])
    return { owner: tag[1] === 'link' ? { paymentLinkId: tag[2] } : { billId: tag[2] }, fallback };
  return { owner: ownerOf(key, invoice.description), fallback };
}

/** The owner a move's description names (marker key and owner note), or null. */
function moveOwner(moveId: number, description: string | null | undefined): Owned {
  const key = markerKeyOf(description);
  return { owner: ownerOf(key, description), fallback: key ?? `account.move:${moveId}` };
}

const invoiceIdOf = (reference: string | null | undefined): number | null =>
  reference?.startsWith('account.invoice,') ? Number(reference.split(',')[1]) : null;
const lineIdOf = (reference: string | null | undefined): number | null =>
  reference?.startsWith('account.move.line,') ? Number(reference.split(',')[1]) : null;

/** The fields of a move line that name its document's owner: the invoice it pays, its move. */
const ownerFields = [
  'invoice_payment',
  'invoice_payment.comment',
  'invoice_payment.description',
  'move',
  'move.origin',
  'move.description',
];

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += ID_CHUNK) out.push(items.slice(i, i + ID_CHUNK));
  return out;
}

export class TrytonFigures {
  private readonly rpc: TrytonRpc;
  /** Tryton's account id per role (the mapping, as verify() found it). */
  private readonly accounts: ReadonlyMap<AccountRole, number>;
  /** The vendors' own expense accounts (VENDOR_EXPENSE_ACCOUNTS), added to Bill Expenses. */
  private readonly vendorAccounts: readonly number[];
  constructor(
    rpc: TrytonRpc,
    accounts: ReadonlyMap<AccountRole, number>,
    vendorAccounts: readonly number[] = [],
  ) {
    this.rpc = rpc;
    this.accounts = accounts;
    this.vendorAccounts = vendorAccounts;
  }

  async asOf(given: string): Promise<TargetFigures> {
    const day = checkedDay(given);
    const balances = await this.balances(day);
    const { openInvoices, openBills } = await this.open(day);
    return { asOf: day, balances, openInvoices, openBills };
  }

  private async balances(day: string): Promise<Partial<Record<AccountRole, number>>> {
    const years = await this.rpc.model<number[]>(
      'account.fiscalyear',
      'search',
      [
        ['start_date', '<=', dateOf(day)],
        ['end_date', '>=', dateOf(day)],
      ],
      0,
      1,
      null,
    );
    if (years.length === 0)
      throw new Error(`Tryton has no fiscal year holding ${day}: it reports no balance as of that day`);
    const ids = [...new Set([...this.accounts.values(), ...this.vendorAccounts])];
    const rows = (await this.rpc.call('model.account.account.read', [ids, ['balance']], {
      date: dateOf(day),
      posted: true,
    })) as { id: number; balance: TrytonDecimal }[];
    const byAccount = new Map(rows.map((r) => [String(r.id), centsOf(r.balance)]));
    const accountOf = new Map<AccountRole, string | null>();
    for (const [role, id] of this.accounts) accountOf.set(role, String(id));
    return balancesByRole(accountOf, byAccount, new Map([['BillExpenses', this.vendorAccounts.map(String)]]));
  }

  private async open(day: string): Promise<Pick<TargetFigures, 'openInvoices' | 'openBills'>> {
    const receivable = this.accounts.get('AccountsReceivable');
    const payable = this.accounts.get('AccountsPayable');
    const accounts = [receivable, payable].filter((a): a is number => a !== undefined);
    const lines = await this.rpc.searchRead<OpenLine>(
      'account.move.line',
      [
        ['account', 'in', accounts],
        ['move.state', '=', 'posted'],
        ['move.date', '<=', dateOf(day)],
        ['OR', ['reconciliation', '=', null], ['reconciliation.date', '>', dateOf(day)]],
      ],
      ['account', 'debit', 'credit', 'origin', ...ownerFields],
    );
    const owners = await this.owners(lines);
    const openInvoices: Record<string, number> = {};
    const openBills: Record<string, number> = {};
    for (const line of lines) {
      const cents = centsOf(line.debit) - centsOf(line.credit);
      const { owner, fallback } = owners.get(line.id) ?? {
        owner: null,
        fallback: `account.move:${line.move}`,
      };
      if (line.account === receivable) {
        const id = owner && 'paymentLinkId' in owner ? owner.paymentLinkId : fallback;
        addOpen(openInvoices, id, cents);
      } else {
        const id = owner && 'billId' in owner ? owner.billId : fallback;
        addOpen(openBills, id, -cents);
      }
    }
    return { openInvoices, openBills };
  }

  /**
   * Each line's document: the invoice it pays, else the invoice whose move it is in, else its move's
   * description, else (a reversal's line) the document of the line it reverses.
   */
  private async owners(lines: readonly OpenLine[]): Promise<Map<number, Owned>> {
    const invoiceIds = [
      ...new Set(
        lines
          .filter((l) => l.invoice_payment === null)
          .map((l) => invoiceIdOf(l['move.']?.origin))
          .filter((id): id is number => id !== null),
      ),
    ];
    const invoices = new Map<number, InvoiceRow>();
    for (const chunk of chunks(invoiceIds)) {
      const rows = await this.rpc.model<InvoiceRow[]>('account.invoice', 'read', chunk, [
        'comment',
        'description',
      ]);
      for (const row of rows) invoices.set(row.id, row);
    }
    const owned = new Map<number, Owned>();
    const reversing: OpenLine[] = [];
    for (const line of lines) {
      const paid = line['invoice_payment.'];
      const invoice = paid ?? invoices.get(invoiceIdOf(line['move.']?.origin) ?? -1);
      const found = invoice
        ? invoiceOwner(invoice)
        : moveOwner(line.move, line['move.']?.description ?? null);
      owned.set(line.id, found);
      if (!found.owner && lineIdOf(line.origin) !== null) reversing.push(line);
    }
    if (reversing.length > 0) {
      // Lines written before booksync noted the owner on a move (or by hand): the line they reverse says.
      const reversedIds = [...new Set(reversing.map((l) => lineIdOf(l.origin) as number))];
      const reversed = new Map<number, OpenLine>();
      for (const chunk of chunks(reversedIds)) {
        const rows = await this.rpc.model<OpenLine[]>('account.move.line', 'read', chunk, ownerFields);
        for (const row of rows) reversed.set(row.id, row);
      }
      const moreInvoices = [
        ...new Set(
          [...reversed.values()]
            .filter((l) => l.invoice_payment === null)
            .map((l) => invoiceIdOf(l['move.']?.origin))
            .filter((id): id is number => id !== null && !invoices.has(id)),
        ),
      ];
      if (moreInvoices.length > 0) {
        const rows = await this.rpc.model<InvoiceRow[]>('account.invoice', 'read', moreInvoices, [
          'comment',
          'description',
        ]);
        for (const row of rows) invoices.set(row.id, row);
      }
      for (const line of reversing) {
        const original = reversed.get(lineIdOf(line.origin) as number);
        if (!original) continue;
        const invoice =
          original['invoice_payment.'] ?? invoices.get(invoiceIdOf(original['move.']?.origin) ?? -1);
        const found = invoice
          ? invoiceOwner(invoice)
          : moveOwner(original.move, original['move.']?.description ?? null);
        const own = owned.get(line.id);
        if (found.owner)
          owned.set(line.id, { owner: found.owner, fallback: own?.fallback ?? found.fallback });
      }
    }
    return owned;
  }
}
