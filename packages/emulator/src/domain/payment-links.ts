import type {
  CreatePaymentLinkRequest,
  UpdatePaymentLinkRequest,
} from '@booksync/service-contract/schemas/index';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../store/ids.js';
import { getOrgRow } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import { getCustomerRow } from './customers.js';
import { type Page, pageOfRows } from './paging.js';
import { bit, type PaymentLinkRow } from './rows.js';

export function getPaymentLinkRow(reader: Reader, orgId: string, linkId: string): PaymentLinkRow {
  return getOrgRow(reader.db, 'payment_links', 'payment link', orgId, linkId);
}

/** requestedAmountCents as returned: the link's own amount plus its live debit memos (2.1, decision “Updating a link”). */
export function debitMemoTotalCents(reader: Reader, linkId: string): number {
  const row = reader.db
    .prepare(
      'SELECT COALESCE(SUM(amount_cents), 0) AS total FROM debit_memos WHERE payment_link_id = ? AND voided = 0',
    )
    .get(linkId) as { total: number };
  return row.total;
}

export function requestedAmountCents(reader: Reader, link: PaymentLinkRow): number {
  return link.own_amount_cents + debitMemoTotalCents(reader, link.id);
}

/**
 * Decision “completedAmountCents”: payments that are neither FAILED (returned) nor cancelled (voided before settlement) count with what
 * is left after their live refunds; live external payments count in full.
 */
export function completedAmountCents(reader: Reader, linkId: string): number {
  const payments = reader.db
    .prepare(
      `SELECT COALESCE(SUM(p.amount_cents - COALESCE((
          SELECT SUM(r.amount_cents) FROM refunds r WHERE r.payment_id = p.id AND r.voided = 0 AND r.returned = 0
        ), 0)), 0) AS total
       FROM payments p WHERE p.payment_link_id = ? AND p.returned = 0 AND p.cancelled = 0`,
    )
    .get(linkId) as { total: number };
  const external = reader.db
    .prepare(
      'SELECT COALESCE(SUM(amount_cents), 0) AS total FROM external_payments WHERE payment_link_id = ? AND voided = 0',
    )
    .get(linkId) as { total: number };
  return payments.total + external.total;
}

/** Decision “Link statuses” in one place: every change that can move money or the requested amount ends by calling this. */
export function rederiveLinkStatus(tx: Tx, linkId: string): PaymentLinkRow {
  const link = tx.db.prepare('SELECT * FROM payment_links WHERE id = ?').get(linkId) as PaymentLinkRow;
  const completed = completedAmountCents(tx, linkId);
  const requested = requestedAmountCents(tx, link);
  const status =
    link.archived === 1 ? 'ARCHIVED' : link.reusable === 0 && completed >= requested ? 'PAID' : 'ACTIVE';
  tx.db
    .prepare('UPDATE payment_links SET status = ?, completed_amount_cents = ? WHERE id = ?')
    .run(status, completed, linkId);
  return { ...link, status, completed_amount_cents: completed };
}

/** What the link has left to pay; a reusable link has no ceiling. */
export function linkRemainingCents(reader: Reader, link: PaymentLinkRow): number {
  if (link.reusable === 1) return Number.MAX_SAFE_INTEGER;
  return Math.max(0, requestedAmountCents(reader, link) - completedAmountCents(reader, link.id));
}

export function createPaymentLink(tx: Tx, orgId: string, input: CreatePaymentLinkRequest): PaymentLinkRow {
  if (input.customerId !== undefined) getCustomerRow(tx, orgId, input.customerId);
  const id = newId('pl');
  tx.db
    .prepare(
      `INSERT INTO payment_links (id, org_id, name, own_amount_cents, due_date, customer_id, reusable,
         fee_passthrough_percent, credit_card_enabled, ach_enabled, amount_editable, status, created_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ACTIVE', ?, ?)`,
    )
    .run(
      id,
      orgId,
      input.name,
      input.requestedAmountCents,
      input.dueDate ?? null,
      input.customerId ?? null,
      input.reusable ? 1 : 0,
      input.feePassthroughPercent ?? null,
      bit(input.creditCardEnabled),
      bit(input.achEnabled),
      input.amountEditable ? 1 : 0,
      tx.now.toISOString(),
      tx.seq(),
    );
  return rederiveLinkStatus(tx, id);
}

/** 4.3 with decision “Updating a link”: omitted leaves a field unchanged, null clears an override. */
export function updatePaymentLink(
  tx: Tx,
  orgId: string,
  linkId: string,
  input: UpdatePaymentLinkRequest,
): PaymentLinkRow {
  const link = getPaymentLinkRow(tx, orgId, linkId);
  if (link.archived === 1) throw badRequest(`payment link ${linkId} is archived`);
  const next: PaymentLinkRow = { ...link };
  if (input.requestedAmountCents !== undefined) next.own_amount_cents = input.requestedAmountCents;
  if (input.name !== undefined) next.name = input.name;
  if (input.dueDate !== undefined) next.due_date = input.dueDate;
  if (input.feePassthroughPercent !== undefined) next.fee_passthrough_percent = input.feePassthroughPercent;
  if (input.creditCardEnabled !== undefined) next.credit_card_enabled = bit(input.creditCardEnabled);
  if (input.achEnabled !== undefined) next.ach_enabled = bit(input.achEnabled);
  if (input.amountEditable !== undefined) next.amount_editable = input.amountEditable ? 1 : 0;
  tx.db
    .prepare(
      `UPDATE payment_links SET own_amount_cents = @own_amount_cents, name = @name, due_date = @due_date,
         fee_passthrough_percent = @fee_passthrough_percent, credit_card_enabled = @credit_card_enabled,
         ach_enabled = @ach_enabled, amount_editable = @amount_editable WHERE id = @id`,
    )
    .run(next);
  return rederiveLinkStatus(tx, linkId);
}

/** Decision “Link endpoints beyond part 4”: archiving twice is a no-op. */
export function archivePaymentLink(tx: Tx, orgId: string, linkId: string): PaymentLinkRow {
  getPaymentLinkRow(tx, orgId, linkId);
  tx.db.prepare('UPDATE payment_links SET archived = 1 WHERE id = ?').run(linkId);
  return rederiveLinkStatus(tx, linkId);
}

export function listPaymentLinks(
  reader: Reader,
  orgId: string,
  filter: Page & { customerId?: string | undefined; status?: string | undefined },
): { rows: PaymentLinkRow[]; total: number } {
  const conditions = {
    'org_id = ?': orgId,
    'customer_id = ?': filter.customerId,
    'status = ?': filter.status,
  };
  return pageOfRows(reader, 'payment_links', conditions, filter);
}

/**
 * Decision “Void an external payment” for an external payment or a debit memo of the link: idempotent, and the link's status is derived again.
 * The record must belong to this link and organization, else 404 naming it.
 */
export function voidLinkRecord<T extends { id: string; payment_link_id: string; voided: number }>(
  tx: Tx,
  table: 'external_payments' | 'debit_memos',
  what: string,
  orgId: string,
  linkId: string,
  recordId: string,
): { row: T; link: PaymentLinkRow } {
  getPaymentLinkRow(tx, orgId, linkId);
  const row = getOrgRow<T>(tx.db, table, what, orgId, recordId);
  if (row.payment_link_id !== linkId) throw notFound(what, recordId);
  if (row.voided === 0) tx.db.prepare(`UPDATE ${table} SET voided = 1 WHERE id = ?`).run(row.id);
  return { row: { ...row, voided: 1 }, link: rederiveLinkStatus(tx, linkId) };
}
