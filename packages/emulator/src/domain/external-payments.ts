import type { RecordExternalPaymentRequest } from '@booksync/service-contract/schemas/index';
import { badRequest, referenceConflict } from '../errors.js';
import { newId } from '../store/ids.js';
import { insertRow, rowsInOrder } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import {
  getPaymentLinkRow,
  linkRemainingCents,
  rederiveLinkStatus,
  voidLinkRecord,
} from './payment-links.js';
import type { ExternalPaymentRow, PaymentLinkRow } from './rows.js';

export interface Recorded<T> {
  row: T;
  link: PaymentLinkRow;
  /** false when an identical reference was repeated and the existing record came back (decision “Reference rule”). */
  created: boolean;
}

/**
 * Decision “Reference rule”: the link's live record (external payment or debit memo) already under this reference. The same record
 * asked for again comes back as it is, not created (200); anything else under the reference is a conflict (409).
 * Undefined when no reference is given or it is new.
 */
export function repeatedReference<T>(
  reader: Reader,
  table: 'external_payments' | 'debit_memos',
  link: PaymentLinkRow,
  reference: string | undefined,
  same: (existing: T) => boolean,
): Recorded<T> | undefined {
  if (reference === undefined) return undefined;
  const existing = reader.db
    .prepare(`SELECT * FROM ${table} WHERE payment_link_id = ? AND external_reference_id = ? AND voided = 0`)
    .get(link.id, reference) as T | undefined;
  if (!existing) return undefined;
  if (!same(existing)) throw referenceConflict(reference);
  return { row: existing, link, created: false };
}

export function liveExternalPayments(reader: Reader, linkId: string): ExternalPaymentRow[] {
  return rowsInOrder(reader.db, 'external_payments', 'payment_link_id = ? AND voided = 0', linkId);
}

export function insertExternalPayment(
  tx: Tx,
  fields: Pick<
    ExternalPaymentRow,
    | 'org_id'
    | 'payment_link_id'
    | 'amount_cents'
    | 'paid_at'
    | 'external_reference_id'
    | 'check_deposit_id'
    | 'service_banking_transfer_id'
  >,
): ExternalPaymentRow {
  const row: ExternalPaymentRow = {
    ...fields,
    id: newId('ep'),
    voided: 0,
    created_at: tx.now.toISOString(),
    seq: tx.seq(),
  };
  return insertRow(tx.db, 'external_payments', row);
}

/** 4.2 with decisions “Record an external payment”, “Reference rule”. */
export function recordExternalPayment(
  tx: Tx,
  orgId: string,
  linkId: string,
  input: RecordExternalPaymentRequest,
): Recorded<ExternalPaymentRow> {
  const link = getPaymentLinkRow(tx, orgId, linkId);
  const same = (existing: ExternalPaymentRow) =>
    existing.check_deposit_id === null &&
    existing.amount_cents === input.amountCents &&
    existing.paid_at === input.paidAt;
  const repeat = repeatedReference(tx, 'external_payments', link, input.externalReferenceId, same);
  if (repeat) return repeat;
  if (link.archived === 1) throw badRequest(`payment link ${linkId} is archived`);
  const remaining = linkRemainingCents(tx, link);
  if (input.amountCents > remaining) {
    throw badRequest(
      `amountCents ${input.amountCents} exceeds what payment link ${linkId} has left to pay (${remaining})`,
    );
  }
  const row = insertExternalPayment(tx, {
    org_id: orgId,
    payment_link_id: linkId,
    amount_cents: input.amountCents,
    paid_at: input.paidAt,
    external_reference_id: input.externalReferenceId ?? null,
    check_deposit_id: null,
    service_banking_transfer_id: null,
  });
  return { row, link: rederiveLinkStatus(tx, linkId), created: true };
}

/** Decision “Void an external payment”: idempotent; frees the reference (the unique index covers live rows only). */
export function voidExternalPayment(
  tx: Tx,
  orgId: string,
  linkId: string,
  externalPaymentId: string,
): { row: ExternalPaymentRow; link: PaymentLinkRow } {
  return voidLinkRecord(tx, 'external_payments', 'external payment', orgId, linkId, externalPaymentId);
}
