import { getOrganization } from '../auth/organizations.js';
import { badRequest } from '../errors.js';
import { isoDate } from '../store/clock.js';
import { newId } from '../store/ids.js';
import { getOrgRow, insertRow } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import { addBalanceEntry } from './balance.js';
import { type Page, pageOfRows } from './paging.js';
import { netPaymentCents } from './payments.js';
import type { DisbursementRow, PaymentRow } from './rows.js';

export function getDisbursementRow(reader: Reader, orgId: string, disbursementId: string): DisbursementRow {
  return getOrgRow(reader.db, 'disbursements', 'disbursement', orgId, disbursementId);
}

export function disbursementPaymentIds(reader: Reader, disbursementId: string): string[] {
  return (
    reader.db
      .prepare('SELECT id FROM payments WHERE disbursement_id = ? ORDER BY seq')
      .all(disbursementId) as {
      id: string;
    }[]
  ).map((row) => row.id);
}

/** A payout's receiving account; the organisation's own bank account when not named. */
export interface PayoutAccount {
  bankName?: string;
  accountNumberLastFour?: string;
}

/**
 * Sandbox, decision “Disbursement statuses”: batch the settled payments no earlier disbursement took, paid to
 * `to` (a business with a second bank account) or the organisation's bank account; disbursement.pending.
 */
export function batchDisbursement(tx: Tx, orgId: string, to: PayoutAccount = {}): DisbursementRow {
  const org = getOrganization(tx, orgId)!;
  const payments = tx.db
    .prepare(
      `SELECT * FROM payments WHERE org_id = ? AND settled = 1 AND disbursement_id IS NULL AND returned = 0 AND cancelled = 0
       ORDER BY seq`,
    )
    .all(orgId) as PaymentRow[];
  if (payments.length === 0) throw badRequest('there are no settled payments to disburse');
  const amount = payments.reduce((sum, payment) => sum + netPaymentCents(tx, payment), 0);
  const row: DisbursementRow = {
    id: newId('dis'),
    org_id: orgId,
    status: 'PENDING',
    amount_cents: amount,
    bank_name: to.bankName ?? org.bank_name,
    account_number_last_four: to.accountNumberLastFour ?? org.bank_account_last_four,
    created_at: isoDate(tx.now),
    paid_at: null,
    seq: tx.seq(),
  };
  insertRow(tx.db, 'disbursements', row);
  const mark = tx.db.prepare('UPDATE payments SET disbursement_id = ? WHERE id = ?');
  for (const payment of payments) mark.run(row.id, payment.id);
  addBalanceEntry(tx, orgId, -amount, 'disbursement', row.id);
  tx.emit({ orgId, category: 'disbursement.pending', objectType: 'disbursement', objectId: row.id });
  return row;
}

/** Sandbox: the receiving bank accepted it (disbursement.succeeded), or refused it (money back, E5). */
export function settleDisbursement(
  tx: Tx,
  orgId: string,
  disbursementId: string,
  outcome: 'SUCCEEDED' | 'FAILED',
): DisbursementRow {
  const row = getDisbursementRow(tx, orgId, disbursementId);
  if (row.status !== 'PENDING')
    throw badRequest(`disbursement ${disbursementId} is ${row.status}, not PENDING`);
  tx.db
    .prepare('UPDATE disbursements SET status = ?, paid_at = ? WHERE id = ?')
    .run(outcome, outcome === 'SUCCEEDED' ? isoDate(tx.now) : null, disbursementId);
  if (outcome === 'SUCCEEDED') {
    tx.emit({
      orgId,
      category: 'disbursement.succeeded',
      objectType: 'disbursement',
      objectId: disbursementId,
    });
  } else {
    addBalanceEntry(tx, orgId, row.amount_cents, 'disbursement failed', disbursementId);
  }
  return getDisbursementRow(tx, orgId, disbursementId);
}

export function listDisbursements(
  reader: Reader,
  orgId: string,
  page: Page,
): { rows: DisbursementRow[]; total: number } {
  return pageOfRows(reader, 'disbursements', { 'org_id = ?': orgId }, page);
}
