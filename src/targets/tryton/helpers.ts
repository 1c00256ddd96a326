import { baseKey, isReversalKey, keyPrefix } from '../../ledger/entry-key.js';
import type { AccountRole } from '../account-mapping.js';
import { closedPeriodNote } from '../closed-periods.js';
import { ownerNote } from '../target-figures.js';
import type { Party, RemoteRecord, TargetDocument } from '../target-port.js';
import { trytonRoleKinds } from './account-types.js';
import type { TrytonDecimal } from './json-rpc.js';

// What the Tryton adapter's modules share besides the session: the rows they read, booksync's marker in a
// record's description, and the rules that say how a document is held (an invoice or a move).

export interface InvoiceRow {
  id: number;
  move: number | null;
  description: string | null;
  state: string;
  amount_to_pay: TrytonDecimal;
}
export interface MoveRow {
  id: number;
  description: string | null;
}
export interface LineRow {
  id: number;
  account: number;
  reconciliation: number | null;
}
export interface OriginalInvoice {
  type: 'out' | 'in';
  party: number;
  invoice_address: number;
  account: number;
  journal: number;
  payment_term: number | null;
  reference: string | null;
  comment: string | null;
  lines: number[];
}
export interface OriginalInvoiceLine {
  id: number;
  type: string;
  account: number;
  quantity: number;
  unit_price: TrytonDecimal;
}
export interface CreditLine {
  debit: TrytonDecimal;
  credit: TrytonDecimal;
  invoice_payment: number | null;
}
export interface OriginalLine {
  id: number;
  account: number;
  party: number | null;
  debit: TrytonDecimal;
  credit: TrytonDecimal;
}

export const marker = (key: string) => `booksync:${key} `;
/** The marker as a LIKE prefix: `_` and `%` in ids (pay_…) must match themselves, not any character. */
export const markerLike = (key: string) => `${marker(key).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
export const linkTag = (paymentLinkId: string) => `booksync-link:${paymentLinkId}`;
export const billTag = (billId: string) => `booksync-bill:${billId}`;
export const receivableRoles = new Set<AccountRole>(['AccountsReceivable', 'AccountsPayable']);
/** Key prefixes Tryton holds as invoices; every other kind (reversals too) is a move. */
const invoiceKinds = new Set(['invoice', 'invoice-adjustment', 'debit-memo', 'refund-reopen', 'bill']);

/**
 * Whether Tryton holds the key's document as an invoice: the invoice kinds, and a reversal of one (a credit
 * note, or the invoice that takes back a credit note).
 */
export function heldAsInvoice(key: string): boolean {
  const reversed = isReversalKey(key) ? key.slice('reversal:'.length) : key;
  return invoiceKinds.has(keyPrefix(baseKey(reversed)));
}

/**
 * A lowering of a link's amount (a discount, a correction): a credit note, applied to the link's invoice.
 * A lowering written off as bad debt is not one (writesOffInvoice).
 */
export function lowersInvoice(document: TargetDocument): boolean {
  if (document.kind !== 'invoice-adjustment') return false;
  const receivable = document.lines.find((l) => l.role === 'AccountsReceivable');
  return receivable !== undefined && receivable.amountCents < 0 && !writesOffInvoice(document);
}

/**
 * A lowering of a link's amount with a line on an expense account (a receivable written off: Bad Debt), or
 * its reversal. A customer credit note's lines are on revenue accounts only (account_invoice 8.2), so Tryton
 * holds it as a move, as its own write-off of a receivable is: Dr the expense / Cr the receivable with the
 * party, a payment line of the link's invoice.
 */
export function writesOffInvoice(document: Pick<TargetDocument, 'kind' | 'lines' | 'reverses'>): boolean {
  const reversal = document.kind === 'reversal';
  const of = reversal ? keyPrefix(baseKey(document.reverses ?? '')) : document.kind;
  if (of !== 'invoice-adjustment') return false;
  const sign = reversal ? -1 : 1;
  return (
    document.lines.some((l) => l.role === 'AccountsReceivable' && sign * l.amountCents < 0) &&
    document.lines.some((l) => sign * l.amountCents > 0 && trytonRoleKinds[l.role].kind === 'expense')
  );
}

/** A record found by key, and whether its posting is still to do (created, then refused or cut short). */
export type FoundRecord = RemoteRecord & { draft: { model: string; id: number } | null };
/** Tryton's refusal to number a customer invoice dated before one it numbered (account_invoice 8.2). */
export const numberedBefore = /you must set an invoice date after/i;

/** Tryton's refusals of a write into a closed period (account module messages, 8.2). */
export const closedPeriodRefusal =
  /you must reopen the period|on closed journal-period|period of move .* is closed/i;

/** A payment link may have no customer (2.1: made in the dashboard without one); Tryton needs a party. */
export const unnamedCustomer: Party = {
  serviceId: 'no-customer',
  name: 'Customers not named at the service',
  email: null,
};

/** The content hash after the key in a booksync description. */
export function hashIn(description: string | null, key: string): string | null {
  if (!description?.startsWith(marker(key))) return null;
  return description.slice(marker(key).length).split(' ')[0] ?? null;
}

/**
 * A move line's text: the business's own reference of the money first (a check number, a transfer id, a
 * payout id: TargetDocument.businessReference), then the entry's description. Tryton 8.2 has no reference
 * field on account.move or account.move.line (account module, move.py: `description` on both, `number` set
 * by Tryton), so the line's description, what the account's lines and a statement's reconciliation show, is
 * the one that carries it; booksync's marker stays in the move's description, where it is searched.
 */
export function lineDescription(document: TargetDocument): string {
  return document.businessReference
    ? `${document.businessReference} - ${document.description}`
    : document.description;
}

/** Today's day (UTC) on this machine: when a customer invoice is issued in Tryton. */
export function issuedToday(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * The description of a booksync record: its marker, then on a move the link or bill it belongs to (an
 * invoice's comment names it already), then the closed-period note of a re-dated one. The owner note lets
 * Tryton's figures (figures.ts) count a receivable or payable line that is no invoice's payment line (a
 * reversal's after close) under its link or bill.
 */
export function described(document: TargetDocument): string {
  const note = closedPeriodNote(document);
  return `${marker(document.key)}${document.contentHash}${moveOwnerNote(document)}${note ? ` ${note}` : ''}`;
}

/** ` booksync link=<id>` / ` booksync bill=<id>` for a move of a link or bill; '' otherwise. */
export function moveOwnerNote(document: TargetDocument): string {
  if (invoiceKinds.has(keyPrefix(baseKey(document.key)))) return '';
  if (document.invoice) return ` ${ownerNote(document.invoice)}`;
  if (document.bill) return ` ${ownerNote(document.bill)}`;
  return '';
}
