import type { BookedEntry, EntryLinks } from '../ledger/entry.js';
import { baseKey, keyPrefix } from '../ledger/entry-key.js';
import { roleOf } from './account-mapping.js';
import { applicationsOf, reapplicationsOf } from './applications.js';
import {
  type DocumentKind,
  documentKinds,
  type Party,
  type PayoutFact,
  type PayoutReceipt,
  payoutFactsAll,
  type TargetDocument,
} from './target-port.js';

/**
 * What a document needs that the ledger entry does not hold: the invoice number (the link's name) and the
 * counterparties' names. Fetched from the service (state is fetched), cached by the caller.
 */
export interface ReferenceData {
  paymentLink(
    paymentLinkId: string,
  ): Promise<{ name: string; customerId: string | null; dueDate?: string | null }>;
  customer(customerId: string): Promise<Party>;
  vendor(vendorId: string): Promise<Party>;
  bill(billId: string): Promise<{ invoiceNumber: string | null; vendorId: string; dueDate?: string | null }>;
  /** The payments a disbursement (a payout) carries, as the service lists them. */
  payout(disbursementId: string): Promise<{ paymentIds: string[] }>;
  /**
   * The disbursement (payout) a payment is in, as the service says it; null when none. Optional: a source
   * that cannot tell leaves a receipt's reversal without the payout that carried it.
   */
  paymentPayout?(paymentId: string): Promise<string | null>;
  // The business's own references of the money (TargetDocument.businessReference). Optional: a source that
  // cannot tell them (a fake naming parties only) leaves documents without one.
  /** An external payment as its link lists it (spec 2.7); null when the link no longer lists it (voided). */
  externalPayment?(
    paymentLinkId: string,
    externalPaymentId: string,
  ): Promise<{ externalReferenceId: string | null; serviceBankingTransferId: string | null } | null>;
  /** A check deposit's transferId, and an application's externalReferenceId when it still lists it (4.1). */
  checkApplication?(
    checkDepositId: string,
    externalPaymentId: string | null,
  ): Promise<{ transferId: string; externalReferenceId: string | null }>;
  /** A bill payment's check number (decision “Bill payments”); null for an ACH payment or a wire, or a check not numbered yet. */
  billPayment?(billPaymentId: string): Promise<{ checkNumber: string | null }>;
}

/**
 * Where earlier entries are read (the ledger): the entry a reversal reverses (its date decides void in place
 * or not), and the receipts a payout carries.
 */
export interface EntryLookup {
  get(key: string): Promise<Pick<BookedEntry, 'date'> | null>;
  entriesFor(filter: EntryLinks): Promise<BookedEntry[]>;
}

/**
 * What a payout nets besides a carried payment's receipt, with its sign in clearing: the surcharge the payer
 * paid (Dr Processor Clearing), the fees and refunds taken out of it (Cr Processor Clearing).
 */
const nettedSign: Readonly<Record<string, 1 | -1>> = {
  'payment-surcharge': 1,
  'payment-fee': -1,
  'surcharge-fee': -1,
  'payment-other-fee': -1,
  refund: -1,
};

/**
 * The receipts a payout carries, as booked: each payment's live `payment:` or `sale:` entry (its key, date and
 * gross amount), in the service's order; a payment the books hold no receipt of (settled before they opened)
 * is left out, its money stays in the payout's balancing line. Beside them, what else the payout nets of
 * those payments (`netted`): each carried payment's live surcharge, fee and refund entries dated on or before
 * the payout (a refund after it cannot be in it), signed as they move clearing, so a target that keeps
 * received money apart deposits them too.
 */
async function payoutReceipts(
  disbursementId: string,
  payoutDate: string,
  references: ReferenceData,
  entries: EntryLookup,
): Promise<{ receipts: PayoutReceipt[]; netted: PayoutReceipt[] }> {
  const receipts: PayoutReceipt[] = [];
  const netted: PayoutReceipt[] = [];
  const gross = (e: BookedEntry) => e.lines.reduce((sum, l) => sum + Math.max(l.amountCents, 0), 0);
  for (const paymentId of (await references.payout(disbursementId)).paymentIds) {
    const live = (await entries.entriesFor({ paymentId })).filter(
      (e) => e.reverses === null && e.reversedBy === null,
    );
    const receipt = live.find((e) => ['payment', 'sale'].includes(keyPrefix(baseKey(e.key))));
    if (!receipt) continue;
    receipts.push({ key: receipt.key, date: receipt.date, amountCents: gross(receipt) });
    for (const e of live) {
      const sign = nettedSign[keyPrefix(baseKey(e.key))];
      if (sign && e.date <= payoutDate)
        netted.push({ key: e.key, date: e.date, amountCents: sign * gross(e) });
    }
  }
  return { receipts, netted };
}

/**
 * The live `disbursement-pending:` entry of the disbursement the service lists the payment in, booked before
 * `bookedBefore` when given; null when the payment is in no payout the books hold.
 */
async function livePayoutOf(
  paymentId: string,
  references: ReferenceData,
  entries: EntryLookup,
  bookedBefore?: number,
): Promise<BookedEntry | null> {
  const disbursementId = await references.paymentPayout?.(paymentId);
  if (!disbursementId) return null;
  const payout = (await entries.entriesFor({ disbursementId })).find(
    (e) =>
      e.reverses === null &&
      e.reversedBy === null &&
      (bookedBefore === undefined || e.id < bookedBefore) &&
      keyPrefix(baseKey(e.key)) === 'disbursement-pending',
  );
  return payout ?? null;
}

/**
 * The payout that carries the receipt a reversal reverses (TargetDocument.carriedBy): the live payout
 * entry, booked before the reversal, of the disbursement the service lists the payment in; null for any other
 * reversal, and for a payment in no payout the books held when it was reversed.
 */
async function payoutCarrying(
  reversal: BookedEntry,
  references: ReferenceData,
  entries: EntryLookup,
): Promise<string | null> {
  const paymentId = reversal.links.paymentId;
  const receipt = ['payment', 'sale'].includes(keyPrefix(baseKey(reversal.reverses ?? '')));
  if (!receipt || !paymentId) return null;
  return (await livePayoutOf(paymentId, references, entries, reversal.id))?.key ?? null;
}

/**
 * The payout that nets a surcharge, fee or refund entry (TargetDocument.nettedBy): the live payout entry of
 * the disbursement the service lists the payment in, dated on or after the entry, as payoutReceipts() nets it;
 * booked before or after the entry. Null for any other entry, a reversed one, and a payment in no payout the
 * books hold.
 */
async function payoutNetting(
  entry: BookedEntry,
  references: ReferenceData,
  entries: EntryLookup,
): Promise<{ key: string; date: string } | null> {
  const paymentId = entry.links.paymentId;
  const netted = nettedSign[keyPrefix(baseKey(entry.key))] !== undefined;
  if (!netted || entry.reverses !== null || entry.reversedBy !== null || !paymentId) return null;
  const payout = await livePayoutOf(paymentId, references, entries);
  return payout && entry.date <= payout.date ? { key: payout.key, date: payout.date } : null;
}

/**
 * When an invoice or bill document is due: the link's or bill's due date (the service's), never before the
 * document's own date (a due date in the past of its issue is the issue day); the document's date when the
 * service gives none. Only the invoice and the bill themselves have one.
 */
export function dueDateOf(doc: TargetDocument): string {
  const due = doc.kind === 'invoice' ? doc.invoice?.dueDate : doc.kind === 'bill' ? doc.bill?.dueDate : null;
  return due && due > doc.date ? due : doc.date;
}

/**
 * The kinds crediting a link's documents, whose split over them the document carries: money received, and
 * a lowering of the link's amount (applicationsOf answers none for a raise).
 */
const moneyOnLink = new Set<DocumentKind>([
  'payment',
  'external-payment',
  'check-application',
  'invoice-adjustment',
]);

/**
 * The kinds charging a link besides its own invoice, which take the customer's credit a lowering left
 * (TargetDocument.reapplies): a memo and a reopened amount; a raise is an `invoice-adjustment`.
 */
const chargeOnLink = new Set<DocumentKind>(['debit-memo', 'refund-reopen']);

export class UnknownDocumentKindError extends Error {
  override readonly name = 'UnknownDocumentKindError';
}

/**
 * Entry kinds that are a document kind under another name: money received outside the service on a reusable
 * link is a sale, and so is a card payment's surcharge; a deposit slip moves checks from Checks To Deposit to
 * the bank, as a cleared check deposit does (a Deposit at QuickBooks, a bank transfer at Xero, a move at
 * Tryton).
 */
const kindAliases: Readonly<Record<string, DocumentKind>> = {
  'external-sale': 'sale',
  // The part of a card fee the payer paid: received from the customer as a sale of its own (on the role of
  // its line, Surcharge Income), and kept by the processor as a fee, as is a fee of another type.
  'payment-surcharge': 'sale',
  'surcharge-fee': 'payment-fee',
  'payment-other-fee': 'payment-fee',
  'deposit-slip': 'check-cleared',
};

function kindOf(entry: BookedEntry): DocumentKind {
  if (entry.reverses !== null) return 'reversal';
  const key = keyPrefix(baseKey(entry.key));
  const prefix = kindAliases[key] ?? key;
  if (!(documentKinds as readonly string[]).includes(prefix)) {
    throw new UnknownDocumentKindError(`ledger entry ${entry.key} has no document kind`);
  }
  return prefix as DocumentKind;
}

/** The service object the money is, for the target's reference field. */
function referenceOf(entry: BookedEntry): string | undefined {
  const l = entry.links;
  return (
    l.depositSlipId ??
    l.refundId ??
    l.externalPaymentId ??
    l.debitMemoId ??
    l.paymentId ??
    l.billPaymentId ??
    l.disbursementId ??
    l.checkDepositId ??
    l.billId ??
    l.paymentLinkId
  );
}

/**
 * A reference as a target may write it: one line, trimmed, and never mistaken for booksync's own marker
 * (`booksync key=`, markers.ts), which adapters read back from the same text at some targets.
 */
export function cleanReference(text: string | null | undefined): string | undefined {
  const clean = (text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/booksync key=/gi, 'booksync key:');
  return clean === '' ? undefined : clean;
}

/**
 * The business's own reference of the money an entry is (TargetDocument.businessReference): what the
 * entry's links hold when they say it (a payout's id), else what the service says of the object, read
 * through ReferenceData. None for a reversal (its original carries it) or money with no such reference.
 */
async function businessReferenceOf(
  entry: BookedEntry,
  kind: DocumentKind,
  references: ReferenceData,
): Promise<string | undefined> {
  const l = entry.links;
  // A deposit slip's number is what the bank line shows.
  if (l.depositSlipId && kind !== 'reversal') return cleanReference(l.depositSlipId);
  switch (kind) {
    case 'disbursement-pending':
    case 'disbursement-paid':
      return cleanReference(l.disbursementId);
    case 'external-payment': {
      if (!l.paymentLinkId || !l.externalPaymentId || !references.externalPayment) return undefined;
      const payment = await references.externalPayment(l.paymentLinkId, l.externalPaymentId);
      return cleanReference(payment?.externalReferenceId ?? payment?.serviceBankingTransferId);
    }
    case 'check-application':
    case 'check-cleared': {
      if (!l.checkDepositId || !references.checkApplication) return undefined;
      const application = kind === 'check-application' ? (l.externalPaymentId ?? null) : null;
      const deposit = await references.checkApplication(l.checkDepositId, application);
      return cleanReference(deposit.externalReferenceId ?? deposit.transferId);
    }
    case 'bill-payment-sent':
    case 'bill-payment-paid': {
      if (!l.billPaymentId || !references.billPayment) return undefined;
      return cleanReference((await references.billPayment(l.billPaymentId)).checkNumber);
    }
    default:
      return undefined;
  }
}

/**
 * The entry's lines by role. A deposit slip credits Checks To Deposit once per check (each line names the
 * payment's entry); its document is one amount from that account to the bank, so lines of one role add up.
 */
function documentLines(entry: BookedEntry): TargetDocument['lines'] {
  const lines = entry.lines.map((l) => ({ role: roleOf(l.account), amountCents: l.amountCents }));
  if (!entry.links.depositSlipId) return lines;
  const byRole = new Map<string, (typeof lines)[number]>();
  for (const line of lines) {
    const same = byRole.get(`${line.role}:${Math.sign(line.amountCents)}`);
    if (same) same.amountCents += line.amountCents;
    else byRole.set(`${line.role}:${Math.sign(line.amountCents)}`, { ...line });
  }
  return [...byRole.values()];
}

/** One ledger entry as the business document a target receives (see target-port.ts for the kinds). */
export async function documentFor(
  entry: BookedEntry,
  references: ReferenceData,
  entries: EntryLookup,
  payoutFacts: readonly PayoutFact[] = payoutFactsAll,
): Promise<TargetDocument> {
  const kind = kindOf(entry);
  const document: TargetDocument = {
    key: entry.key,
    kind,
    date: entry.date,
    description: entry.description,
    amountCents: entry.lines.reduce((sum, l) => sum + Math.max(l.amountCents, 0), 0),
    lines: documentLines(entry),
    contentHash: entry.contentHash,
  };
  const reference = referenceOf(entry);
  if (reference) document.reference = reference;
  const businessReference = await businessReferenceOf(entry, kind, references);
  if (businessReference) document.businessReference = businessReference;
  if (entry.reverses !== null) {
    document.reverses = entry.reverses;
    document.reason = entry.description;
    const original = await entries.get(entry.reverses);
    if (original) document.originalDate = original.date;
    const carriedBy = payoutFacts.includes('carriedBy') && (await payoutCarrying(entry, references, entries));
    if (carriedBy) document.carriedBy = carriedBy;
  }
  const nettedBy = payoutFacts.includes('nettedBy') && (await payoutNetting(entry, references, entries));
  if (nettedBy) document.nettedBy = nettedBy;
  const { paymentLinkId, billId, disbursementId } = entry.links;
  if (kind === 'disbursement-pending' && disbursementId) {
    document.payout = await payoutReceipts(disbursementId, entry.date, references, entries);
  }
  if (paymentLinkId) {
    const link = await references.paymentLink(paymentLinkId);
    document.invoice = {
      paymentLinkId,
      number: link.name,
      ...(link.dueDate ? { dueDate: link.dueDate } : {}),
    };
    const customerId = entry.links.customerId ?? link.customerId;
    if (customerId) document.customer = await references.customer(customerId);
    if (entry.reverses !== null || moneyOnLink.has(kind) || chargeOnLink.has(kind)) {
      const linkEntries = await entries.entriesFor({ paymentLinkId });
      const settles = entry.reverses === null && moneyOnLink.has(kind) && applicationsOf(entry, linkEntries);
      if (settles) document.settles = settles;
      // A reversal of money, or a charge on the link (a raise too): the lowerings' credits its documents take.
      const again = settles ? [] : reapplicationsOf(entry, linkEntries);
      if (again.length > 0) document.reapplies = again;
    }
  }
  if (billId) {
    const bill = await references.bill(billId);
    document.bill = {
      billId,
      number: bill.invoiceNumber,
      ...(bill.dueDate ? { dueDate: bill.dueDate } : {}),
    };
    document.vendor = await references.vendor(entry.links.vendorId ?? bill.vendorId);
  } else if (entry.links.vendorId) {
    document.vendor = await references.vendor(entry.links.vendorId);
  }
  return document;
}
