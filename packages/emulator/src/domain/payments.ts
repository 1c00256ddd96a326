import type { PaymentMethod, RefundPaymentRequest } from '@booksync/service-contract/schemas/index';
import { getOrganization } from '../auth/organizations.js';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../store/ids.js';
import { getOrgRow, insertRow, rowsInOrder } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import { addBalanceEntry } from './balance.js';
import { cardFeeCents, passedThroughCents } from './fees.js';
import { type Page, pageOfRows } from './paging.js';
import { getPaymentLinkRow, linkRemainingCents, rederiveLinkStatus } from './payment-links.js';
import type { PaymentRow, RefundRow } from './rows.js';
import { SANDBOX_PAYER_BILLING, sandboxPayerMethod } from './sandbox-payer.js';
import {
  effectiveAchEnabled,
  effectiveCreditCardEnabled,
  effectiveFeePassthroughPercent,
  linkCustomer,
} from './settings.js';

export const ACH_RETURN_WINDOW_DAYS = 60;

export type PaymentStatusValue = 'PENDING' | 'SUCCEEDED' | 'REFUNDED' | 'FAILED';

export function getPaymentRow(reader: Reader, orgId: string, paymentId: string): PaymentRow {
  return getOrgRow(reader.db, 'payments', 'payment', orgId, paymentId);
}

/** Refunds as listed on the payment: live and voided ones; a returned ACH refund credit leaves (decision “Returned ACH refund credit”). */
export function listedRefunds(reader: Reader, paymentId: string): RefundRow[] {
  return rowsInOrder(reader.db, 'refunds', 'payment_id = ? AND returned = 0', paymentId);
}

export function liveRefundedCents(reader: Reader, paymentId: string): number {
  return (
    reader.db
      .prepare(
        'SELECT COALESCE(SUM(amount_cents), 0) AS total FROM refunds WHERE payment_id = ? AND voided = 0 AND returned = 0',
      )
      .get(paymentId) as { total: number }
  ).total;
}

/** Part 3 and decision “Settlement and voids”, derived from the facts, never stored. */
export function paymentStatus(reader: Reader, row: PaymentRow): PaymentStatusValue {
  if (row.cancelled === 1) return 'REFUNDED';
  if (row.returned === 1) return 'FAILED';
  if (row.method_type === 'ACH' && row.settled === 0) return 'PENDING';
  return liveRefundedCents(reader, row.id) >= row.amount_cents ? 'REFUNDED' : 'SUCCEEDED';
}

/** What the business is owed from this payment now: amount less its absorbed fee and live refunds (decision “Disbursement statuses”). */
export function netPaymentCents(reader: Reader, row: PaymentRow): number {
  return row.amount_cents - row.platform_fee_cents - liveRefundedCents(reader, row.id);
}

export interface PayLinkInput {
  method: 'Card' | 'ACH' | 'ServiceBalance';
  amountCents?: number | undefined;
}

function paymentMethodFor(reader: Reader, orgId: string, method: PayLinkInput['method']): PaymentMethod {
  const org = getOrganization(reader, orgId)!;
  return {
    ...sandboxPayerMethod(method),
    serviceBalanceDetails:
      method === 'ServiceBalance'
        ? { nickname: 'Operating', accountNumberLastFour: org.bank_account_last_four, spendableCents: null }
        : null,
    billingDetails: { ...SANDBOX_PAYER_BILLING, email: 'payer@example.com' },
  };
}

/**
 * Sandbox: a customer pays a link. decision “Fees” fees with the decision “Precedence” passthrough; card SUCCEEDED unsettled, ACH PENDING,
 * ServiceBalance SUCCEEDED and settled at once (decision “Settlement and voids”). Emits payment.made (decision “Which transition emits which event”).
 */
export function payPaymentLink(tx: Tx, orgId: string, linkId: string, input: PayLinkInput): PaymentRow {
  const link = getPaymentLinkRow(tx, orgId, linkId);
  const org = getOrganization(tx, orgId)!;
  const customer = linkCustomer(tx, link);
  if (link.archived === 1) throw badRequest(`payment link ${linkId} is archived`);
  if (link.status === 'PAID') throw badRequest(`payment link ${linkId} is already paid`);
  if (input.method === 'Card' && !effectiveCreditCardEnabled(org, link)) {
    throw badRequest(`card payments are disabled for payment link ${linkId}`);
  }
  if (input.method === 'ACH' && !effectiveAchEnabled(org, customer, link)) {
    throw badRequest(`ACH payments are disabled for payment link ${linkId}`);
  }
  const remaining = linkRemainingCents(tx, link);
  const amount = input.amountCents ?? (link.reusable === 1 ? undefined : remaining);
  if (amount === undefined) throw badRequest('amountCents is required to pay a reusable payment link');
  if (amount < 1) throw badRequest('amountCents must be at least 1');
  if (amount > remaining)
    throw badRequest(`amountCents ${amount} exceeds what payment link ${linkId} has left (${remaining})`);
  if (link.reusable === 0 && link.amount_editable === 0 && amount !== remaining) {
    throw badRequest(`payment link ${linkId} does not let the payer edit the amount (${remaining} is due)`);
  }
  const fee = input.method === 'Card' ? cardFeeCents(amount) : 0;
  const passed = passedThroughCents(fee, effectiveFeePassthroughPercent(org, customer, link));
  const settledAtOnce = input.method === 'ServiceBalance';
  const row: PaymentRow = {
    id: newId('pay'),
    org_id: orgId,
    payment_link_id: linkId,
    method_type: input.method,
    payment_method: JSON.stringify(paymentMethodFor(tx, orgId, input.method)),
    amount_cents: amount,
    charged_amount_cents: amount + passed,
    fee_cents: fee,
    platform_fee_cents: fee - passed,
    settled: settledAtOnce ? 1 : 0,
    sent_to_network: 0,
    cancelled: 0,
    returned: 0,
    disbursement_id: null,
    created_at_ms: tx.now.getTime(),
    settled_at: settledAtOnce ? tx.now.toISOString() : null,
    seq: tx.seq(),
  };
  insertRow(tx.db, 'payments', row);
  if (settledAtOnce) addBalanceEntry(tx, orgId, amount - row.platform_fee_cents, 'payment settled', row.id);
  rederiveLinkStatus(tx, linkId);
  tx.emit({ orgId, category: 'payment.made', objectType: 'payment', objectId: row.id });
  return row;
}

/** Sandbox: an ACH debit goes to the network; from here a refund must wait for settlement (decision “Settlement and voids”). */
export function sendAchToNetwork(tx: Tx, orgId: string, paymentId: string): PaymentRow {
  const row = getPaymentRow(tx, orgId, paymentId);
  if (row.method_type !== 'ACH') throw badRequest(`payment ${paymentId} is not an ACH payment`);
  if (row.cancelled === 1 || row.returned === 1 || row.settled === 1) {
    throw badRequest(`payment ${paymentId} is ${paymentStatus(tx, row)}; it cannot be sent to the network`);
  }
  tx.db.prepare('UPDATE payments SET sent_to_network = 1 WHERE id = ?').run(paymentId);
  return getPaymentRow(tx, orgId, paymentId);
}

/** Sandbox: card or ACH settlement; the net amount joins the held balance. ACH becomes SUCCEEDED. */
export function settlePayment(tx: Tx, orgId: string, paymentId: string): PaymentRow {
  const row = getPaymentRow(tx, orgId, paymentId);
  if (row.settled === 1) throw badRequest(`payment ${paymentId} is already settled`);
  if (row.cancelled === 1 || row.returned === 1) {
    throw badRequest(`payment ${paymentId} is ${paymentStatus(tx, row)}; it cannot settle`);
  }
  tx.db
    .prepare('UPDATE payments SET settled = 1, sent_to_network = 1, settled_at = ? WHERE id = ?')
    .run(tx.now.toISOString(), paymentId);
  addBalanceEntry(tx, orgId, netPaymentCents(tx, row), 'payment settled', paymentId);
  return getPaymentRow(tx, orgId, paymentId);
}

/**
 * Sandbox: the payer's bank returns an ACH debit (payment.failed), only within 60 days of payment.made.
 * A payment with live refunds cannot be returned (E4): the money already went back.
 */
export function returnAchPayment(tx: Tx, orgId: string, paymentId: string): PaymentRow {
  const row = getPaymentRow(tx, orgId, paymentId);
  if (row.method_type !== 'ACH') throw badRequest(`payment ${paymentId} is not an ACH payment`);
  if (row.cancelled === 1 || row.returned === 1) {
    throw badRequest(`payment ${paymentId} is ${paymentStatus(tx, row)}; it cannot be returned`);
  }
  const windowEnds = row.created_at_ms + ACH_RETURN_WINDOW_DAYS * 86_400_000;
  if (tx.now.getTime() > windowEnds) {
    throw badRequest(`payment ${paymentId} is past the ${ACH_RETURN_WINDOW_DAYS}-day ACH return window`);
  }
  if (liveRefundedCents(tx, paymentId) > 0)
    throw badRequest(`payment ${paymentId} has live refunds; it cannot be returned`);
  tx.db.prepare('UPDATE payments SET returned = 1 WHERE id = ?').run(paymentId);
  if (row.settled === 1) addBalanceEntry(tx, orgId, -netPaymentCents(tx, row), 'ACH return', paymentId);
  if (row.payment_link_id !== null) rederiveLinkStatus(tx, row.payment_link_id);
  tx.emit({ orgId, category: 'payment.failed', objectType: 'payment', objectId: paymentId });
  return getPaymentRow(tx, orgId, paymentId);
}

/** 4.4 with decisions “Settlement and voids”, “Refund amount”. */
export function refundPayment(
  tx: Tx,
  orgId: string,
  paymentId: string,
  input: RefundPaymentRequest,
): PaymentRow {
  const row = getPaymentRow(tx, orgId, paymentId);
  const status = paymentStatus(tx, row);
  if (status === 'FAILED') throw badRequest(`payment ${paymentId} failed; there is nothing to refund`);
  const refundable = row.cancelled === 1 ? 0 : row.amount_cents - liveRefundedCents(tx, paymentId);
  const amount = input.amountCents ?? refundable;
  if (refundable === 0) throw badRequest(`payment ${paymentId} has nothing left to refund`);
  if (amount > refundable) {
    throw badRequest(
      `amountCents ${amount} exceeds the refundable balance of payment ${paymentId} (${refundable})`,
    );
  }
  const beforeNetwork = row.settled === 0 && (row.method_type === 'Card' || row.sent_to_network === 0);
  if (row.settled === 0 && !beforeNetwork) {
    throw badRequest(`payment ${paymentId} was sent to the ACH network; refund after it settles`);
  }
  if (beforeNetwork) {
    // The charge is cancelled whole: no partial amount, no fee (decision “Settlement and voids”).
    if (amount !== row.amount_cents) {
      throw badRequest(
        `payment ${paymentId} is not settled yet; only a full refund (${row.amount_cents}) can cancel it`,
      );
    }
    tx.db
      .prepare('UPDATE payments SET cancelled = 1, fee_cents = 0, platform_fee_cents = 0 WHERE id = ?')
      .run(paymentId);
    insertRefund(tx, paymentId, amount, input.reason, true);
    tx.emit({ orgId, category: 'payment.voided', objectType: 'payment', objectId: paymentId });
  } else {
    insertRefund(tx, paymentId, amount, input.reason, false);
    addBalanceEntry(tx, orgId, -amount, 'refund', paymentId);
    tx.emit({ orgId, category: 'payment.refunded', objectType: 'payment', objectId: paymentId });
  }
  if (row.payment_link_id !== null) rederiveLinkStatus(tx, row.payment_link_id);
  return getPaymentRow(tx, orgId, paymentId);
}

function insertRefund(
  tx: Tx,
  paymentId: string,
  amountCents: number,
  reason: string | undefined,
  voided: boolean,
): void {
  tx.db
    .prepare(
      `INSERT INTO refunds (id, payment_id, amount_cents, reason, refund_date, voided, returned, seq)
       VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
    )
    .run(newId('re'), paymentId, amountCents, reason ?? null, tx.now.toISOString(), voided ? 1 : 0, tx.seq());
}

/** Sandbox, part 3 and decision “Returned ACH refund credit”: an ACH refund credit comes back; REFUNDED reverts to SUCCEEDED; payment.failed. */
export function returnRefundCredit(tx: Tx, orgId: string, refundId: string): PaymentRow {
  const refund = tx.db
    .prepare(
      'SELECT r.* FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE r.id = ? AND p.org_id = ?',
    )
    .get(refundId, orgId) as RefundRow | undefined;
  if (!refund) throw notFound('refund', refundId);
  const payment = getPaymentRow(tx, orgId, refund.payment_id);
  if (payment.method_type !== 'ACH') throw badRequest(`refund ${refundId} is not an ACH refund credit`);
  if (refund.voided === 1 || refund.returned === 1)
    throw badRequest(`refund ${refundId} is not a live refund credit`);
  tx.db
    .prepare('UPDATE refunds SET returned = 1, returned_at = ? WHERE id = ?')
    .run(tx.now.toISOString(), refundId);
  addBalanceEntry(tx, orgId, refund.amount_cents, 'refund credit returned', payment.id);
  if (payment.payment_link_id !== null) rederiveLinkStatus(tx, payment.payment_link_id);
  tx.emit({ orgId, category: 'payment.failed', objectType: 'payment', objectId: payment.id });
  return getPaymentRow(tx, orgId, payment.id);
}

/** Decision “Payment endpoints beyond part 4”: oldest first. */
export function listPayments(
  reader: Reader,
  orgId: string,
  filter: Page & { paymentLinkId?: string | undefined; since?: string | undefined },
): { rows: PaymentRow[]; total: number } {
  const sinceMs = filter.since === undefined ? undefined : Date.parse(`${filter.since}T00:00:00.000Z`);
  const conditions = {
    'org_id = ?': orgId,
    'payment_link_id = ?': filter.paymentLinkId,
    'created_at_ms >= ?': sinceMs,
  };
  return pageOfRows(reader, 'payments', conditions, filter);
}

export function linkPayments(reader: Reader, linkId: string): PaymentRow[] {
  return rowsInOrder(reader.db, 'payments', 'payment_link_id = ?', linkId);
}
