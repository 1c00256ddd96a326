import type { CreateBillRequest } from '@booksync/service-contract/schemas/index';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../store/ids.js';
import { getOrgRow, insertRow } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import type { BillPaymentRow, BillRow, VendorDeliveryMethodRow } from './rows.js';
import { getVendorRow } from './vendors.js';

export function getBillRow(reader: Reader, orgId: string, billId: string): BillRow {
  return getOrgRow(reader.db, 'bills', 'bill', orgId, billId);
}

/** Decision “Bills”, derived from its payments: PAID once one succeeded, SCHEDULED while one is in flight, else OPEN. */
export function billStatus(reader: Reader, billId: string): 'OPEN' | 'SCHEDULED' | 'PAID' {
  const statuses = (
    reader.db.prepare('SELECT status FROM bill_payments WHERE bill_id = ?').all(billId) as {
      status: string;
    }[]
  ).map((row) => row.status);
  if (statuses.includes('SUCCEEDED')) return 'PAID';
  if (statuses.includes('PENDING')) return 'SCHEDULED';
  return 'OPEN';
}

export function createBill(tx: Tx, orgId: string, input: CreateBillRequest): BillRow {
  getVendorRow(tx, orgId, input.vendorId);
  const row: BillRow = {
    id: newId('bill'),
    org_id: orgId,
    vendor_id: input.vendorId,
    amount_cents: input.amountCents,
    due_date: input.dueDate ?? null,
    invoice_number: input.invoiceNumber ?? null,
    created_at: tx.now.toISOString(),
  };
  return insertRow(tx.db, 'bills', row);
}

export function getBillPaymentRow(reader: Reader, orgId: string, billPaymentId: string): BillPaymentRow {
  return getOrgRow(reader.db, 'bill_payments', 'bill payment', orgId, billPaymentId);
}

/** Decision “Bill payments”: pays the whole bill through one of the vendor's current ACH or CHECK methods. */
export function createBillPayment(
  tx: Tx,
  orgId: string,
  billId: string,
  deliveryMethodId: string,
): BillPaymentRow {
  const bill = getBillRow(tx, orgId, billId);
  getVendorRow(tx, orgId, bill.vendor_id);
  const status = billStatus(tx, billId);
  if (status !== 'OPEN') throw badRequest(`bill ${billId} is ${status}`);
  const method = tx.db
    .prepare('SELECT * FROM vendor_delivery_methods WHERE id = ? AND vendor_id = ? AND replaced = 0')
    .get(deliveryMethodId, bill.vendor_id) as VendorDeliveryMethodRow | undefined;
  if (!method) throw notFound('vendor delivery method', deliveryMethodId);
  if (method.type !== 'ACH' && method.type !== 'CHECK') {
    throw badRequest(`invalid deliveryMethodId: bill payments go by ACH or CHECK, not ${method.type}`);
  }
  const isCheck = method.type === 'CHECK';
  const row: BillPaymentRow = {
    id: newId('bp'),
    org_id: orgId,
    bill_id: billId,
    vendor_id: bill.vendor_id,
    amount_cents: bill.amount_cents,
    status: 'PENDING',
    delivery_method_id: method.id,
    delivery_method_type: method.type,
    sent_at: null,
    completed_at: null,
    failure_reason: null,
    check_number: isCheck ? String(1000 + tx.seq()) : null,
    check_status: isCheck ? 'PENDING' : null,
    check_sent_at: null,
    check_delivered_at: null,
    check_deposited_at: null,
    check_returned_at: null,
    check_failed_at: null,
    created_at: tx.now.toISOString(),
  };
  return insertRow(tx.db, 'bill_payments', row);
}

/** Part 3 and decision “Bill payments”: only before it is sent; reports FAILED with CANCELLED; bill_payment.cancelled. */
export function cancelBillPayment(tx: Tx, orgId: string, billPaymentId: string): BillPaymentRow {
  const row = getBillPaymentRow(tx, orgId, billPaymentId);
  if (row.status !== 'PENDING' || row.sent_at !== null) {
    throw badRequest(
      `bill payment ${billPaymentId} was already sent to the payment network; it cannot be cancelled`,
    );
  }
  tx.db
    .prepare(
      `UPDATE bill_payments SET status = 'FAILED', failure_reason = 'CANCELLED', check_status = CASE WHEN check_status IS NULL THEN NULL ELSE 'FAILED' END WHERE id = ?`,
    )
    .run(billPaymentId);
  tx.emit({ orgId, category: 'bill_payment.cancelled', objectType: 'bill_payment', objectId: billPaymentId });
  return getBillPaymentRow(tx, orgId, billPaymentId);
}

export type BillPaymentTransition =
  | 'check.sent'
  | 'check.delivered'
  | 'check.deposited'
  | 'check.returned'
  | 'check.failed'
  | 'ach.sent'
  | 'ach.succeeded'
  | 'ach.failed';

/**
 * Sandbox: the outside world moves a bill payment (decisions “Bill payments”, “Which transition emits which event”). Check events carry the bill payment's id.
 * A deposited check completes the payment (check.deposited, then bill_payment.succeeded).
 */
export function advanceBillPayment(
  tx: Tx,
  orgId: string,
  billPaymentId: string,
  transition: BillPaymentTransition,
): BillPaymentRow {
  const row = getBillPaymentRow(tx, orgId, billPaymentId);
  const now = tx.now.toISOString();
  const isCheck = row.delivery_method_type === 'CHECK';
  const refuse = () => {
    throw badRequest(
      `bill payment ${billPaymentId} (${row.status}, check ${row.check_status ?? 'n/a'}) cannot take ${transition}`,
    );
  };
  const update = (sql: string, ...params: unknown[]) =>
    tx.db.prepare(`UPDATE bill_payments SET ${sql} WHERE id = ?`).run(...params, billPaymentId);
  const emit = (category: string, objectType: 'check' | 'bill_payment') =>
    tx.emit({ orgId, category, objectType, objectId: billPaymentId });
  if (row.status !== 'PENDING') refuse();
  if (transition.startsWith('check.') !== isCheck) refuse();
  switch (transition) {
    case 'check.sent':
      if (row.check_status !== 'PENDING') refuse();
      update(`check_status = 'SENT', check_sent_at = ?, sent_at = ?`, now, now);
      emit('check.sent', 'check');
      break;
    case 'check.delivered':
      if (row.check_status !== 'SENT') refuse();
      update(`check_status = 'DELIVERED', check_delivered_at = ?`, now);
      emit('check.delivered', 'check');
      break;
    case 'check.deposited':
      if (row.check_status !== 'SENT' && row.check_status !== 'DELIVERED') refuse();
      update(
        `check_status = 'DEPOSITED', check_deposited_at = ?, status = 'SUCCEEDED', completed_at = ?`,
        now,
        now,
      );
      emit('check.deposited', 'check');
      emit('bill_payment.succeeded', 'bill_payment');
      break;
    case 'check.returned':
      if (row.check_status !== 'SENT' && row.check_status !== 'DELIVERED') refuse();
      update(
        `check_status = 'RETURNED', check_returned_at = ?, status = 'FAILED', failure_reason = 'CHECK_RETURNED'`,
        now,
      );
      emit('check.returned', 'check');
      break;
    case 'check.failed':
      if (row.check_status === 'DEPOSITED' || row.check_status === 'RETURNED') refuse();
      update(
        `check_status = 'FAILED', check_failed_at = ?, status = 'FAILED', failure_reason = 'CHECK_FAILED'`,
        now,
      );
      emit('check.failed', 'check');
      break;
    case 'ach.sent':
      if (row.sent_at !== null) refuse();
      update('sent_at = ?', now);
      break;
    case 'ach.succeeded':
      update(`status = 'SUCCEEDED', completed_at = ?, sent_at = COALESCE(sent_at, ?)`, now, now);
      emit('bill_payment.succeeded', 'bill_payment');
      break;
    case 'ach.failed':
      update(`status = 'FAILED', failure_reason = 'ACH_FAILED', sent_at = COALESCE(sent_at, ?)`, now);
      emit('bill_payment.failed', 'bill_payment');
      break;
  }
  return getBillPaymentRow(tx, orgId, billPaymentId);
}
