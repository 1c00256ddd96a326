import { baseKey, isReversalKey, keyPrefix } from '../ledger/entry-key.js';
import type { AccountRole } from './account-mapping.js';
import { markersIn } from './markers.js';

// The accounting software's own figures as of a day (the target side), for the three-way close
// certificate: the service's figures, the ledger's balances, and what each target itself reports, read from
// the target's reports (not from booksync's index). A port of its own beside the push port (target-port.ts),
// so an adapter joins it on its own: a target without a reader is simply not compared.
//
// What the targets' reports are (README of each adapter, "Figures as of a day"):
// - balances: the target's trial balance as of the end of the day, per account, through the role → account
//   mapping. Balance-sheet roles are cumulative; income and expense roles are what the target's trial balance
//   shows for them, i.e. since the start of the target's fiscal year (QuickBooks and Xero close them to
//   retained earnings at each year end), so across a fiscal year end they differ from the ledger's all-time sums;
// - open amounts per invoice (payment link) and per bill: the target's aged receivables / payables as of the
//   day, each document attributed through the marker booksync wrote on it (markers.ts, linkNote()).

export interface TargetFigures {
  /** YYYY-MM-DD, end of that day. */
  asOf: string;
  /**
   * Balance per account role (signed cents, debit positive), from the target's trial balance, through the
   * role→account mapping; roles whose accounts are absent count 0.
   */
  balances: Partial<Record<AccountRole, number>>;
  /**
   * Open amount per invoice, keyed by the service's payment link id as booksync stored it at the target
   * (the invoice's marker, or the link noted on a charge invoice), positive when owed. A receivable document
   * booksync did not make, or made before links were noted on charge invoices, is keyed by what the target
   * knows of it: its marker's entry key, else `<target's document type>:<target id>`.
   */
  openInvoices: Record<string, number>;
  /** Open amount per bill, keyed by the service's bill id (the same fallbacks), positive when owed. */
  openBills: Record<string, number>;
}

export interface TargetFiguresReader {
  readonly name: string;
  figuresAsOf(day: string): Promise<TargetFigures>;
}

/**
 * A target's figures as of `given` (checked to be a day), read one after another: the balances, then what is
 * open per link, then per bill.
 */
export async function figuresOf(
  given: string,
  read: {
    balances(day: string): Promise<Partial<Record<AccountRole, number>>>;
    openInvoices(day: string): Promise<Record<string, number>>;
    openBills(day: string): Promise<Record<string, number>>;
  },
): Promise<TargetFigures> {
  const day = checkedDay(given);
  const balances = await read.balances(day);
  const openInvoices = await read.openInvoices(day);
  const openBills = await read.openBills(day);
  return { asOf: day, balances, openInvoices, openBills };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A YYYY-MM-DD that is a real calendar day, or a RangeError. */
export function checkedDay(day: string): string {
  const parsed = new Date(`${day}T00:00:00Z`);
  if (!DAY.test(day) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day)
    throw new RangeError(`not a day (YYYY-MM-DD): ${day}`);
  return day;
}

/**
 * The note booksync writes on a receivable or payable document whose own key does not name its link or bill
 * (a debit memo's or refund's charge invoice, a payment's reversal after close): `booksync link=<payment link
 * id>` / `booksync bill=<bill id>`, beside the marker, so the target's aging attributes its open amount.
 */
export function ownerNote(owner: { paymentLinkId: string } | { billId: string }): string {
  return 'paymentLinkId' in owner ? `booksync link=${owner.paymentLinkId}` : `booksync bill=${owner.billId}`;
}

export type DocumentOwner = { paymentLinkId: string } | { billId: string };

/** `text` with the owner's note after it (ownerNote), or `text` alone when there is no owner. */
export function withOwnerNote(text: string, owner: DocumentOwner | undefined): string {
  return owner ? `${text} ${ownerNote(owner)}` : text;
}

/**
 * The payment link or bill a document at the target belongs to: the note on it, else its key's own
 * (`invoice:<link>[#n]`, `invoice-adjustment:<link>:<n>`, `bill:<bill>[#n]`), else null.
 */
export function ownerOf(key: string | null, text: unknown): DocumentOwner | null {
  const note = typeof text === 'string' ? /booksync (link|bill)=(\S+)/.exec(text) : null;
  if (note?.[2]) return note[1] === 'link' ? { paymentLinkId: note[2] } : { billId: note[2] };
  if (!key || isReversalKey(key)) return null;
  const base = baseKey(key);
  const id = base.slice(base.indexOf(':') + 1);
  switch (keyPrefix(base)) {
    case 'invoice':
      return { paymentLinkId: id };
    case 'invoice-adjustment': {
      const last = id.lastIndexOf(':');
      return last > 0 ? { paymentLinkId: id.slice(0, last) } : null;
    }
    case 'bill':
      return { billId: id };
    default:
      return null;
  }
}

/** Adds an open amount under its key (several documents of one link or bill add up); zero is left out. */
export function addOpen(open: Record<string, number>, key: string, cents: number): void {
  if (cents === 0) return;
  const sum = (open[key] ?? 0) + cents;
  if (sum === 0) delete open[key];
  else open[key] = sum;
}

/**
 * Adds a document's open amount under the link or bill (`side`) its note names, else under its marker's
 * entry key, else under `fallback` (the document itself).
 */
export function addOpenByNote(
  open: Record<string, number>,
  side: 'paymentLinkId' | 'billId',
  note: string | undefined,
  fallback: string,
  cents: number,
): void {
  const key = markersIn(note).at(0)?.key ?? null;
  const owner = ownerOf(key, note);
  const ownerId = owner && side in owner ? (owner as Record<string, string>)[side] : undefined;
  addOpen(open, ownerId ?? key ?? fallback, cents);
}

/**
 * Balances per role from balances per target account (the id the report names each account by): a role
 * whose account is absent from the report counts 0. Two roles mapped to one account both show its balance.
 * `added`: more accounts a role's balance adds up (Bill Expenses: the vendors' own expense accounts).
 */
export function balancesByRole(
  accountOf: ReadonlyMap<AccountRole, string | null>,
  byAccount: ReadonlyMap<string, number>,
  added: ReadonlyMap<AccountRole, readonly string[]> = new Map(),
): Partial<Record<AccountRole, number>> {
  const balances: Partial<Record<AccountRole, number>> = {};
  for (const [role, account] of accountOf) balances[role] = account ? (byAccount.get(account) ?? 0) : 0;
  for (const [role, accounts] of added)
    for (const account of accounts) balances[role] = (balances[role] ?? 0) + (byAccount.get(account) ?? 0);
  return balances;
}

/**
 * A report's decimal text as integer cents, through the digits (no float arithmetic): "1,234.5" → 123450,
 * "-12.34" and "(12.34)" → -1234, "" → 0. More than two places is refused, not rounded.
 */
export function reportCents(text: string | undefined | null): number {
  const raw = (text ?? '').trim().replace(/,/g, '');
  if (raw === '') return 0;
  const parenthesised = /^\((.*)\)$/.exec(raw);
  const body = parenthesised ? (parenthesised[1] ?? '') : raw;
  const m = /^([+-]?)(\d*)(?:\.(\d{0,2}))?$/.exec(body);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new RangeError(`not an amount: ${text}`);
  const cents = Number(m[2] || '0') * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) throw new RangeError(`amount out of range: ${text}`);
  const negative = (m[1] === '-') !== (parenthesised !== null);
  return negative && cents !== 0 ? -cents : cents;
}
