import type { BillPayment, Payment } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry } from '../ledger/entry.js';
import { baseKey, keyPrefix } from '../ledger/entry-key.js';
import { businessDay } from '../ledger/mapping/dates.js';
import { economicDay, reversalDays } from './balances-as-of.js';
import type { DocumentCheck } from './certificate-checks.js';
import type { CloseInput } from './close-input.js';
import { paymentStanding, refundedBy } from './payment-standing.js';

// Each invoice's receivable and each bill's payable as of the end of the period's last day, both sides dated
// alike. Pure.
//
// The service's side is worked out from its records' own dates, not from the books' entries:
// - a payment link's remainder: its requested amount now, less the debit memos created after the day
//   (createdAt), less its payments standing at the day's end (createdAt; a refund made by then, refundDate,
//   reopens its amount; a FAILED one counts until the books reversed it, the spec giving no time), less its
//   external payments and applied checks paid by then (paidAt). An invoice paid on the 3rd of the next month
//   is still owed at the period's end. The spec gives a link no creation date and no history of its requested
//   amount: a link counts at the day's end when money or a memo moved on it by then, or the books date its
//   invoice by then; a link whose amount changed after the day shows its new amount. A voided external
//   payment, a returned check's application and a voided memo leave the link without a trace (the spec lists
//   live records only): one the books booked by the day and reversed after it counts at the day's end as the
//   books booked it, as a failure the spec gives no time counts until the books' reversal.
// - a bill's amount (createdAt by then), less its payments sent by then (sentAt, else completedAt when
//   SUCCEEDED); a FAILED one, whose failure the spec gives no time, counts as sent until the books reversed
//   its entry, and not at all when they never booked it.
// The books' side: the Accounts Receivable (by payment link) and Accounts Payable (by bill) lines of the
// entries whose economic date (else date) is on or before the day.

export interface DocumentsAsOf {
  /** The period's last day: both sides as of its end, in the books' time zone. */
  asOf: string;
  receivables: DocumentCheck[];
  payables: DocumentCheck[];
}

/** The books' open amount per document from the entries of the day or before (receivable +, payable +). */
function booksOpenAsOf(entries: readonly BookedEntry[], day: string) {
  const invoices = new Map<string, number>();
  const bills = new Map<string, number>();
  const invoicedBy = new Set<string>();
  for (const entry of entries) {
    if (economicDay(entry) > day) continue;
    const { paymentLinkId, billId } = entry.links;
    if (paymentLinkId && keyPrefix(baseKey(entry.reverses ?? entry.key)) === 'invoice')
      invoicedBy.add(paymentLinkId);
    for (const line of entry.lines) {
      if (paymentLinkId && line.account === Accounts.AccountsReceivable)
        invoices.set(paymentLinkId, (invoices.get(paymentLinkId) ?? 0) + line.amountCents);
      else if (billId && line.account === Accounts.AccountsPayable)
        bills.set(billId, (bills.get(billId) ?? 0) - line.amountCents);
    }
  }
  return { invoices, bills, invoicedBy };
}

/** Per document id, the books' and the service's amounts; a document at neither side with 0 is left out. */
function compare(service: Map<string, number>, books: Map<string, number>, ignored: ReadonlySet<string>) {
  const ids = new Set([...service.keys(), ...[...books].filter(([, c]) => c !== 0).map(([k]) => k)]);
  return [...ids]
    .filter((id) => !ignored.has(id))
    .sort()
    .map((documentId): DocumentCheck => {
      const booksCents = books.get(documentId) ?? 0;
      const serviceCents = service.get(documentId) ?? 0;
      return { documentId, booksCents, serviceCents, ok: booksCents === serviceCents };
    });
}

/** The kinds of a link's own records that vanish from it when voided or returned, with the id naming them. */
const vanishing = {
  'external-payment': 'externalPaymentId',
  'check-application': 'externalPaymentId',
  'debit-memo': 'debitMemoId',
} as const;

/**
 * Per link, the Accounts Receivable lines of its records the service no longer lists (voided or returned)
 * that the books booked by the end of `day` and reversed after it.
 */
function vanishedAsOf(input: CloseInput, day: string): Map<string, number> {
  const listed = new Set(
    input.links.flatMap((l) => [...l.externalPayments.map((e) => e.id), ...l.debitMemos.map((m) => m.id)]),
  );
  const reversedOn = new Map<string, string>();
  for (const e of input.entries) if (e.reverses !== null) reversedOn.set(e.reverses, economicDay(e));
  const out = new Map<string, number>();
  for (const e of input.entries) {
    const kind = keyPrefix(baseKey(e.key)) as keyof typeof vanishing;
    const linkId = e.links.paymentLinkId;
    if (e.reverses !== null || !Object.hasOwn(vanishing, kind) || !linkId) continue;
    const objectId = e.links[vanishing[kind]];
    const undone = reversedOn.get(e.key);
    if (!objectId || listed.has(objectId) || economicDay(e) > day || undone === undefined || undone <= day)
      continue;
    const ar = e.lines.filter((l) => l.account === Accounts.AccountsReceivable);
    out.set(linkId, (out.get(linkId) ?? 0) + ar.reduce((sum, l) => sum + l.amountCents, 0));
  }
  return out;
}

/** What each link still asked for at the end of `day`, from the service's records (see the file's comment). */
function linkRemaindersAsOf(input: CloseInput, day: string, invoicedBy: ReadonlySet<string>) {
  const { timeZone } = input;
  const failedOn = reversalDays(input.entries).payments;
  const remainders = new Map<string, number>();
  const vanished = vanishedAsOf(input, day);
  for (const link of input.links) {
    if (link.reusable) continue;
    const memosAfter = link.debitMemos.filter(
      (m) => !m.voided && businessDay(m.createdAt, timeZone, `debit memo ${m.id} createdAt`) > day,
    );
    const paidBy = link.externalPayments.filter(
      (e) => !e.voided && businessDay(e.paidAt, timeZone, `external payment ${e.id} paidAt`) <= day,
    );
    const standing = link.payments.filter(
      (p: Payment) => paymentStanding(p, day, timeZone, failedOn.get(p.id)) === 'stands',
    );
    const movedBy =
      paidBy.length > 0 ||
      link.payments.some((p) => paymentStanding(p, day, timeZone, undefined) !== 'not-yet') ||
      link.debitMemos.length > memosAfter.length ||
      vanished.has(link.id);
    if (!movedBy && !invoicedBy.has(link.id)) continue;
    remainders.set(
      link.id,
      link.requestedAmountCents +
        (vanished.get(link.id) ?? 0) -
        memosAfter.reduce((sum, m) => sum + m.amountCents, 0) -
        standing.reduce((sum, p) => sum + p.amountInCents - refundedBy(p, day, timeZone), 0) -
        paidBy.reduce((sum, e) => sum + e.amountCents, 0),
    );
  }
  return remainders;
}

/** The day the books reversed each bill payment's sent entry, for those with no live one any more. */
export function billPaymentReversals(entries: readonly BookedEntry[]): Map<string, string> {
  const reversed = new Map<string, string>();
  const live = new Set<string>();
  for (const entry of entries) {
    const id = entry.links.billPaymentId;
    if (!id || keyPrefix(baseKey(entry.reverses ?? entry.key)) !== 'bill-payment-sent') continue;
    if (entry.reverses === null && entry.reversedBy === null) live.add(id);
    else if (entry.reverses !== null) {
      const seen = reversed.get(id);
      if (seen === undefined || economicDay(entry) > seen) reversed.set(id, economicDay(entry));
    }
  }
  for (const id of live) reversed.delete(id);
  return reversed;
}

/** What each bill still owed at the end of `day`, from the service's records (see the file's comment). */
function billsOwedAsOf(input: CloseInput, day: string) {
  const { timeZone } = input;
  const owed = new Map<string, number>();
  for (const bill of input.bills) {
    if (businessDay(bill.createdAt, timeZone, `bill ${bill.id} createdAt`) <= day)
      owed.set(bill.id, bill.amountCents);
  }
  const reversedOn = billPaymentReversals(input.entries);
  const sentBy = (bp: BillPayment) => {
    const sent = bp.sentAt ?? (bp.status === 'SUCCEEDED' ? bp.completedAt : null);
    if (!sent || businessDay(sent, timeZone, `bill payment ${bp.id} sentAt`) > day) return false;
    if (bp.status !== 'FAILED') return true;
    const undone = reversedOn.get(bp.id);
    return undone !== undefined && undone > day;
  };
  for (const bp of input.billPayments) {
    if (owed.has(bp.billId) && sentBy(bp)) owed.set(bp.billId, owed.get(bp.billId)! - bp.amountCents);
  }
  return owed;
}

/** Each invoice's receivable and each bill's payable as of the end of `day`, the books against the service. */
export function documentsAsOf(input: CloseInput, day: string): DocumentsAsOf {
  const books = booksOpenAsOf(input.entries, day);
  // A reusable link is a standing price, not an invoice: it has no remainder to compare.
  const reusable = new Set(input.links.filter((l) => l.reusable).map((l) => l.id));
  return {
    asOf: day,
    receivables: compare(linkRemaindersAsOf(input, day, books.invoicedBy), books.invoices, reusable),
    payables: compare(billsOwedAsOf(input, day), books.bills, new Set()),
  };
}
