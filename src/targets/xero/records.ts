import { baseKey, keyPrefix } from '../../ledger/entry-key.js';
import type { AccountRole } from '../account-mapping.js';
import { TargetRefusedError } from '../errors.js';
import { marker, markersIn } from '../markers.js';
import type { DocumentLine, PushResult, TargetDocument } from '../target-port.js';
import { literal } from './keys.js';

// Xero's records as booksync reads and writes them: the entities a document becomes, their ids
// (`<Entity>:<id>` remoteIds), the marker each carries and where, and Xero's answers read back. Pure.

export type XeroEntity =
  | 'Invoice'
  | 'CreditNote'
  | 'Payment'
  | 'BankTransaction'
  | 'BankTransfer'
  | 'ManualJournal';

// biome-ignore lint/suspicious/noExplicitAny: the SDK's models, built and read as plain objects
export type Body = Record<string, any>;

export interface Plan {
  entity: XeroEntity;
  body: Body;
}

/** Where a kind's document goes, first the usual entity, then the fallbacks a plan may choose. */
const entitiesByKind: Record<string, XeroEntity[]> = {
  invoice: ['Invoice', 'ManualJournal'],
  'debit-memo': ['Invoice', 'ManualJournal'],
  'refund-reopen': ['Invoice', 'ManualJournal'],
  bill: ['Invoice', 'ManualJournal'],
  'invoice-adjustment': ['Invoice', 'CreditNote', 'ManualJournal'],
  payment: ['Payment', 'BankTransaction', 'ManualJournal'],
  'external-payment': ['Payment', 'BankTransaction', 'ManualJournal'],
  'check-application': ['Payment', 'BankTransaction', 'ManualJournal'],
  'bill-payment-sent': ['Payment', 'BankTransaction', 'ManualJournal'],
  sale: ['BankTransaction', 'ManualJournal'],
  'payment-fee': ['BankTransaction', 'ManualJournal'],
  refund: ['BankTransaction', 'ManualJournal'],
  'disbursement-pending': ['BankTransfer', 'BankTransaction', 'ManualJournal'],
  'disbursement-paid': ['BankTransfer', 'BankTransaction', 'ManualJournal'],
  'check-cleared': ['BankTransfer', 'BankTransaction', 'ManualJournal'],
  'deposit-slip': ['BankTransfer', 'BankTransaction', 'ManualJournal'],
  'check-deposited': ['BankTransaction', 'BankTransfer', 'ManualJournal'],
  'bill-payment-paid': ['BankTransfer', 'BankTransaction', 'ManualJournal'],
  'opening-balances': ['ManualJournal'],
};

export const deletedStatuses = new Set(['DELETED', 'VOIDED']);

/** A bank transaction that is a contact's credit: Xero keeps an Overpayment beside it (overpayments.ts). */
export function isOverpayment(entity: XeroEntity, record: Body): boolean {
  return entity === 'BankTransaction' && /OVERPAYMENT$/.test(String(record.type ?? ''));
}

/** The entities a key's document may become, the usual one first. */
export function entitiesOf(key: string): XeroEntity[] {
  return entitiesByKind[keyPrefix(baseKey(key))] ?? ['ManualJournal'];
}

/** How many keys one lookup request asks for (OR'ed in `where`, kept well inside a URL's length). */
export const LOOKUP_CHUNK = 10;

/** A lock date as the SDK gives it (a Date from Xero's /Date(ms)/, or a string) as YYYY-MM-DD. */
export function dayOf(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  if (typeof value !== 'string' || value === '') return null;
  const ms = /^\/Date\((-?\d+)/.exec(value)?.[1];
  return ms ? new Date(Number(ms)).toISOString().slice(0, 10) : value.slice(0, 10);
}

export function idOf(entity: XeroEntity, record: Body): string {
  const field = {
    Invoice: 'invoiceID',
    CreditNote: 'creditNoteID',
    Payment: 'paymentID',
    BankTransaction: 'bankTransactionID',
    BankTransfer: 'bankTransferID',
    ManualJournal: 'manualJournalID',
  }[entity];
  return String(record[field] ?? '');
}

/**
 * The `where` term of records marked with `key`: a journal's Narration starts with the marker; a Reference
 * contains it, after the business's reference when there is one (references.ts), at the start when there
 * is none or the record predates references (Contains finds both). Guarded by `!= null`: Xero calls the
 * method on every record, and one without the field (an invoice keyed in Xero with no Reference) fails the
 * whole request with a 500 (a Xero engineer on freakboy3742/pyxero#181; waynerobinson/xeroizer#138), which
 * booksync would read as Xero being down and retry for ever.
 */
export function markedWith(field: 'Reference' | 'Narration', key: string): string {
  const method = field === 'Narration' ? 'StartsWith' : 'Contains';
  return `(${field} != null && ${field}.${method}(${literal(marker(key, ''))}))`;
}

/** The text that carries a record's marker. */
export function markerText(entity: XeroEntity, record: Body): string {
  if (entity === 'ManualJournal') return String(record.narration ?? '');
  if (entity === 'Invoice' && String(record.type) === 'ACCPAY')
    return String(record.lineItems?.[0]?.description ?? '');
  return String(record.reference ?? '');
}

export function markOf(entity: XeroEntity, record: Body, key: string) {
  return markersIn(markerText(entity, record)).find((m) => m.key === key) ?? null;
}

export function parseRemoteId(remoteId: string | undefined): { entity: XeroEntity; id: string } | null {
  const parts = (remoteId ?? '').split(':');
  if (parts.length === 2 && parts[0] && parts[1]) return { entity: parts[0] as XeroEntity, id: parts[1] };
  return null;
}

/** The two roles of a two-line document. */
export function pairOf(lines: DocumentLine[]): { debit: AccountRole; credit: AccountRole } | null {
  if (lines.length !== 2) return null;
  const debit = lines.find((l) => l.amountCents > 0);
  const credit = lines.find((l) => l.amountCents < 0);
  return debit && credit ? { debit: debit.role, credit: credit.role } : null;
}

/**
 * Invoices of a type with any of these numbers. (A `where` rather than the InvoiceNumbers parameter: xero-node
 * sends arrays as `InvoiceNumbers[]=a&InvoiceNumbers[]=b`, not the comma-separated form Xero documents.)
 */
export function numbered(type: 'ACCREC' | 'ACCPAY', numbers: string[]): string {
  return `Type==${literal(type)} AND (${numbers.map((n) => `InvoiceNumber==${literal(n)}`).join(' OR ')})`;
}

export const salesPayments = new Set(['payment', 'external-payment', 'check-application']);

/** Xero refused a customer's payment because the invoice cannot take it (overpaid, already PAID). */
export function overpaidRefusal(doc: TargetDocument, outcome: PushResult | Error | undefined): boolean {
  return (
    salesPayments.has(doc.kind) &&
    outcome instanceof TargetRefusedError &&
    /amount outstanding|not of valid status|invoice is (PAID|VOIDED)/i.test(outcome.targetMessage)
  );
}

/**
 * A refused element of a batch created with summarizeErrors=false: Xero answers 200 with each element, a refused
 * one with StatusAttributeString ERROR and its ValidationErrors (xero_accounting.yaml, parameter summarizeErrors).
 */
export function itemErrors(record: Body | undefined): string[] {
  const messages = ((record?.validationErrors ?? []) as { message?: string }[]).map((v) =>
    String(v.message ?? ''),
  );
  if (messages.length === 0 && String(record?.statusAttributeString ?? '') === 'ERROR')
    return ['refused without a message'];
  return messages;
}
