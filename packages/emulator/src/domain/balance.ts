import type { Reader, Tx } from '../store/store.js';

/**
 * The money the service holds for an organization, as an append-only ledger of its own: settlement adds,
 * refunds, returns and disbursements take away. Kept apart from the derived amounts so a conservation test
 * can compare the two.
 */
export function addBalanceEntry(
  tx: Tx,
  orgId: string,
  amountCents: number,
  reason: string,
  objectId: string,
): void {
  tx.db
    .prepare(
      'INSERT INTO balance_entries (org_id, amount_cents, reason, object_id, created_at) VALUES (?, ?, ?, ?, ?)',
    )
    .run(orgId, amountCents, reason, objectId, tx.now.toISOString());
}

export function heldBalanceCents(reader: Reader, orgId: string): number {
  return (
    reader.db
      .prepare('SELECT COALESCE(SUM(amount_cents), 0) AS total FROM balance_entries WHERE org_id = ?')
      .get(orgId) as { total: number }
  ).total;
}
