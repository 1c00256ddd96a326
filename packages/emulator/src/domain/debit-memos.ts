import type { RecordDebitMemoRequest } from '@booksync/service-contract/schemas/index';
import { badRequest } from '../errors.js';
import { newId } from '../store/ids.js';
import { insertRow, rowsInOrder } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import { type Recorded, repeatedReference } from './external-payments.js';
import { getPaymentLinkRow, rederiveLinkStatus, voidLinkRecord } from './payment-links.js';
import type { DebitMemoRow, PaymentLinkRow } from './rows.js';

export function liveDebitMemos(reader: Reader, linkId: string): DebitMemoRow[] {
  return rowsInOrder(reader.db, 'debit_memos', 'payment_link_id = ? AND voided = 0', linkId);
}

/** Decision “Debit memos”: raises requestedAmountCents, so a PAID link reopens; the reference rule (decision “Reference rule”) in its own namespace. */
export function recordDebitMemo(
  tx: Tx,
  orgId: string,
  linkId: string,
  input: RecordDebitMemoRequest,
): Recorded<DebitMemoRow> {
  const link = getPaymentLinkRow(tx, orgId, linkId);
  const same = (existing: DebitMemoRow) =>
    existing.amount_cents === input.amountCents && existing.description === input.description;
  const repeat = repeatedReference(tx, 'debit_memos', link, input.externalReferenceId, same);
  if (repeat) return repeat;
  if (link.archived === 1) throw badRequest(`payment link ${linkId} is archived`);
  const row: DebitMemoRow = {
    id: newId('dm'),
    org_id: orgId,
    payment_link_id: linkId,
    amount_cents: input.amountCents,
    description: input.description,
    voided: 0,
    external_reference_id: input.externalReferenceId ?? null,
    created_at: tx.now.toISOString(),
    seq: tx.seq(),
  };
  insertRow(tx.db, 'debit_memos', row);
  return { row, link: rederiveLinkStatus(tx, linkId), created: true };
}

/** Idempotent like decision “Void an external payment”. */
export function voidDebitMemo(
  tx: Tx,
  orgId: string,
  linkId: string,
  debitMemoId: string,
): { row: DebitMemoRow; link: PaymentLinkRow } {
  return voidLinkRecord(tx, 'debit_memos', 'debit memo', orgId, linkId, debitMemoId);
}
