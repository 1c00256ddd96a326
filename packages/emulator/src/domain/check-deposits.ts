import type { ApplyCheckDepositRequest } from '@booksync/service-contract/schemas/index';
import { badRequest } from '../errors.js';
import { isoDate } from '../store/clock.js';
import { newId } from '../store/ids.js';
import { getOrgRow, insertRow, rowsInOrder } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import { insertExternalPayment, type Recorded, repeatedReference } from './external-payments.js';
import { type Page, pageOfRows } from './paging.js';
import { getPaymentLinkRow, linkRemainingCents, rederiveLinkStatus } from './payment-links.js';
import type { CheckDepositRow, ExternalPaymentRow, PaymentLinkRow } from './rows.js';

export function getCheckDepositRow(reader: Reader, orgId: string, depositId: string): CheckDepositRow {
  return getOrgRow(reader.db, 'check_deposits', 'check deposit', orgId, depositId);
}

export function depositApplications(reader: Reader, depositId: string): ExternalPaymentRow[] {
  return rowsInOrder(reader.db, 'external_payments', 'check_deposit_id = ? AND voided = 0', depositId);
}

/** Summed in SQL over the deposit's index: reading every application on each apply slowed applies as they grew. */
export function unappliedAmountCents(reader: Reader, deposit: CheckDepositRow): number {
  const { applied } = reader.db
    .prepare(
      'SELECT COALESCE(SUM(amount_cents), 0) AS applied FROM external_payments WHERE check_deposit_id = ? AND voided = 0',
    )
    .get(deposit.id) as { applied: number };
  return deposit.amount_cents - applied;
}

/** Decision “Check deposits”: a new deposit is PROCESSING; it can be applied at once (4.1 rule 3). */
export function depositCheck(
  tx: Tx,
  orgId: string,
  input: { amountCents: number; memo?: string | undefined },
): CheckDepositRow {
  const row: CheckDepositRow = {
    id: newId('cd'),
    org_id: orgId,
    transfer_id: newId('tr'),
    amount_cents: input.amountCents,
    status: 'PROCESSING',
    memo: input.memo ?? null,
    created_at: tx.now.toISOString(),
    cleared_at: null,
    returned_at: null,
    seq: tx.seq(),
  };
  return insertRow(tx.db, 'check_deposits', row);
}

/**
 * 4.1. Order: 404s, then the reference rule (so a retried apply answers 200 even once the link is paid),
 * then the 400s. A repeat without amountCents is "the same payment" when the deposit matches (E1).
 */
export function applyCheckDeposit(
  tx: Tx,
  orgId: string,
  depositId: string,
  input: ApplyCheckDepositRequest,
): Recorded<ExternalPaymentRow> {
  const deposit = getCheckDepositRow(tx, orgId, depositId);
  const link = getPaymentLinkRow(tx, orgId, input.paymentLinkId);
  const same = (existing: ExternalPaymentRow) =>
    existing.check_deposit_id === deposit.id &&
    (input.amountCents === undefined || existing.amount_cents === input.amountCents);
  const repeat = repeatedReference(tx, 'external_payments', link, input.externalReferenceId, same);
  if (repeat) return repeat;
  if (deposit.status === 'RETURNED' || deposit.status === 'REJECTED') {
    throw badRequest(`check deposit ${deposit.id} was ${deposit.status.toLowerCase()}`);
  }
  if (link.archived === 1) throw badRequest(`payment link ${link.id} is archived`);
  if (link.reusable === 1) throw badRequest(`payment link ${link.id} is a reusable payment link`);
  const unapplied = unappliedAmountCents(tx, deposit);
  const remaining = linkRemainingCents(tx, link);
  const amount = input.amountCents ?? Math.min(unapplied, remaining);
  if (amount > unapplied) {
    throw badRequest(
      `amountCents ${amount} exceeds what check deposit ${deposit.id} has left to apply (${unapplied})`,
    );
  }
  if (amount > remaining) {
    throw badRequest(
      `amountCents ${amount} exceeds what payment link ${link.id} has left to pay (${remaining})`,
    );
  }
  if (amount < 1)
    throw badRequest(`nothing to apply: deposit has ${unapplied} left, link has ${remaining} left`);
  const row = insertExternalPayment(tx, {
    org_id: orgId,
    payment_link_id: link.id,
    amount_cents: amount,
    paid_at: isoDate(new Date(deposit.created_at)),
    external_reference_id: input.externalReferenceId ?? null,
    check_deposit_id: deposit.id,
    service_banking_transfer_id: deposit.transfer_id,
  });
  return { row, link: rederiveLinkStatus(tx, link.id), created: true };
}

export function listCheckDeposits(
  reader: Reader,
  orgId: string,
  filter: Page & { status?: string | undefined },
): { rows: CheckDepositRow[]; total: number } {
  return pageOfRows(reader, 'check_deposits', { 'org_id = ?': orgId, 'status = ?': filter.status }, filter);
}

/** Sandbox: the bank cleared the check. */
export function clearCheckDeposit(tx: Tx, orgId: string, depositId: string): CheckDepositRow {
  const deposit = getCheckDepositRow(tx, orgId, depositId);
  if (deposit.status !== 'PROCESSING')
    throw badRequest(`check deposit ${depositId} is ${deposit.status}, not PROCESSING`);
  tx.db
    .prepare(`UPDATE check_deposits SET status = 'CLEARED', cleared_at = ? WHERE id = ?`)
    .run(tx.now.toISOString(), depositId);
  return getCheckDepositRow(tx, orgId, depositId);
}

/**
 * Part 3 / 4.1 rule 4: a returned or rejected check voids every application and the links reopen.
 * A cleared check can still come back returned (E2); a rejected one is refused only while PROCESSING.
 */
export function returnCheckDeposit(
  tx: Tx,
  orgId: string,
  depositId: string,
  outcome: 'RETURNED' | 'REJECTED',
): { deposit: CheckDepositRow; reopenedLinks: PaymentLinkRow[] } {
  const deposit = getCheckDepositRow(tx, orgId, depositId);
  const allowed = outcome === 'RETURNED' ? ['PROCESSING', 'CLEARED'] : ['PROCESSING'];
  if (!allowed.includes(deposit.status)) {
    throw badRequest(
      `check deposit ${depositId} is ${deposit.status}; it cannot be ${outcome.toLowerCase()}`,
    );
  }
  const applications = depositApplications(tx, depositId);
  tx.db
    .prepare('UPDATE external_payments SET voided = 1 WHERE check_deposit_id = ? AND voided = 0')
    .run(depositId);
  tx.db
    .prepare('UPDATE check_deposits SET status = ?, returned_at = ? WHERE id = ?')
    .run(outcome, tx.now.toISOString(), depositId);
  const linkIds = [...new Set(applications.map((row) => row.payment_link_id))];
  return {
    deposit: getCheckDepositRow(tx, orgId, depositId),
    reopenedLinks: linkIds.map((linkId) => rederiveLinkStatus(tx, linkId)),
  };
}
