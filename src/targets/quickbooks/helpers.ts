import { baseKey, keyPrefix } from '../../ledger/entry-key.js';
import type { TargetDocument } from '../target-port.js';
import { pairOf } from './documents.js';
import { isStaleObject } from './faults.js';
import type { QboEntity } from './http-client.js';
import { markersIn, requestIdFor } from './keys.js';
import type { QuickBooksSession } from './session.js';

// What the QuickBooks adapter's modules share that holds no state: which QBO entity holds a key, how each is
// voided or reversed, reading markers and remote ids, and updates with a fresh SyncToken.

export const entityByKind: Record<string, string> = {
  invoice: 'Invoice',
  'debit-memo': 'Invoice',
  'refund-reopen': 'Invoice',
  payment: 'Payment',
  'external-payment': 'Payment',
  'check-application': 'Payment',
  sale: 'SalesReceipt',
  refund: 'RefundReceipt',
  'disbursement-pending': 'Deposit',
  'disbursement-paid': 'Deposit',
  'check-cleared': 'Deposit',
  'deposit-slip': 'Deposit',
  'check-deposited': 'Deposit',
  bill: 'Bill',
  'bill-payment-sent': 'BillPayment',
  // A lowering (a write-off, a discount) is a CreditMemo; a raising a charge Invoice (found there next).
  'invoice-adjustment': 'CreditMemo',
};

/** QBO's own cancel: a voided invoice (nothing applied to it) or payment stays, with its amounts zeroed. */
export const voidable = new Set(['Invoice', 'Payment', 'BillPayment', 'SalesReceipt']);
/**
 * How each is voided (Intuit's API reference, "Void a payment" / "Void a bill payment" / "Void a sales
 * receipt": a sparse update with include=void; "Void an invoice": operation=void; the PHP SDK's
 * CoreConstants: PAYMENTCLASSNAME = payment, salesreceipt take VOID_QUERYPARAMETER_PAYMENT, others _GENERAL).
 */
export const voidQuery: Record<string, { operation: string; include?: string }> = {
  Invoice: { operation: 'void' },
  Payment: { operation: 'update', include: 'void' },
  BillPayment: { operation: 'update', include: 'void' },
  SalesReceipt: { operation: 'update', include: 'void' },
};
/**
 * What reverses a payment or bill payment that may not be voided (its month is past or closed): a document of
 * its own dated in the open period, as Intuit documents a bounced check ("Record a bounced check using an
 * invoice": an invoice for the customer, dated the day the check bounced, through an item whose account is the
 * one the payment went into), so the customer owes again and the closed period stays as it was. A bill
 * payment's reversal is the mirror: a bill for the vendor on the account the payment left.
 */
export const reversingEntity: Record<string, string> = {
  Payment: 'Invoice',
  BillPayment: 'Bill',
  // A lowered invoice's credit memo stays (it may be applied, paid past, in a closed month): the amount owed
  // again is a charge invoice of its own, in any month.
  CreditMemo: 'Invoice',
};
/** Found by the date of the document: QBO filters neither Payment's nor Deposit's DocNumber. */
export const byDate = new Set(['Payment', 'Deposit']);

/** QBO's void leaves "Voided" at the start of PrivateNote and the amounts at zero. */
export function isVoided(record: QboEntity): boolean {
  return /^Voided\b/.test(String(record.PrivateNote ?? '')) && Number(record.TotalAmt ?? 0) === 0;
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The row that carries this key's marker. */
export function rowOf(rows: QboEntity[], key: string): QboEntity | null {
  return rows.find((r) => markersIn(r.PrivateNote).some((m) => m.key === key)) ?? null;
}

/** A batch of creates' requestid: its creates', so the same batch retried after a lost answer is replayed. */
export function batchRequestId(createRequestIds: string[]): string {
  return requestIdFor(createRequestIds.join('\n'), 'batch');
}

export function parseRemoteId(remoteId: string | undefined): { entity: string; id: string } | null {
  const parts = (remoteId ?? '').split(':');
  if (parts.length === 2 && parts[0] && parts[1]) return { entity: parts[0], id: parts[1] };
  return null;
}

/** Invoice numbers asked about in one query of a prefetch. */
export const NUMBERS_PER_QUERY = 30;

/** A deposited check's credit applied to an invoice (Dr Unapplied Cash / Cr A/R). */
export function isCheckCreditApplied(doc: TargetDocument): boolean {
  const pair = pairOf(doc.lines);
  return (
    doc.kind === 'check-application' &&
    pair?.debit === 'UnappliedCash' &&
    pair.credit === 'AccountsReceivable'
  );
}

export function entityOf(key: string): string {
  return entityByKind[keyPrefix(baseKey(key))] ?? 'JournalEntry';
}

/**
 * Updates with the record's current Id and SyncToken before the fields `body` gives; a stale SyncToken
 * (someone edited it meanwhile) is re-read and retried.
 */
export async function withFreshSyncToken(
  s: QuickBooksSession,
  entity: string,
  id: string,
  body: (current: QboEntity) => Record<string, unknown>,
  operation: { operation: string; include?: string },
  key: string,
  read?: QboEntity,
): Promise<QboEntity> {
  const label = operation.include ? `${operation.operation}+${operation.include}` : operation.operation;
  for (let attempt = 1; ; attempt++) {
    const current = attempt === 1 && read ? read : await s.client.read(entity, id);
    try {
      // The requestid includes the SyncToken read: a replay after a lost answer is the same write, a
      // retry after a stale token is a new one.
      return await s.client.write(
        entity,
        { Id: current.Id, SyncToken: current.SyncToken, ...body(current) },
        {
          ...operation,
          requestid: requestIdFor(`${key}@${current.SyncToken}`, label),
        },
      );
    } catch (error) {
      if (!isStaleObject(error) || attempt >= 3) throw error;
      s.options.logger?.info({ entity, id, attempt }, 'stale SyncToken, re-reading');
    }
  }
}
