import type { PayoutReceipt, PushResult, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { idempotencyKey } from './keys.js';
import { payoutNotes } from './payout-notes.js';
import { parseRemoteId } from './records.js';

// A payout's transfer at Xero, noted with the receipts it carries (README, "Payouts").

/**
 * A payout's transfer lists the receipts it carries in its History & Notes (payout-notes.ts; Xero links no
 * payment to a transfer, and a batch deposit would make the payments again: README, "Payouts"). The notes
 * Xero holds are read first and only the missing ones added, so a push again (a restarted worker, a
 * transfer found by its key) writes none twice; Xero cannot edit or delete a note.
 */
export async function noted(
  ctx: XeroContext,
  doc: TargetDocument,
  receipts: readonly PayoutReceipt[],
  result: PushResult,
): Promise<PushResult> {
  const transfer = parseRemoteId(result.remoteIds[0]);
  const notes = payoutNotes(receipts);
  if (transfer?.entity !== 'BankTransfer' || notes.length === 0) return result;
  const history = await ctx.client.call('getBankTransferHistory', (api, t) =>
    api.getBankTransferHistory(t, transfer.id),
  );
  const have = new Set((history.historyRecords ?? []).map((r) => String(r.details ?? '')));
  const missing = notes.filter((n) => !have.has(n));
  if (missing.length === 0) return result;
  const records = { historyRecords: missing.map((details) => ({ details })) };
  const key = idempotencyKey(ctx.client.tenantId, `${doc.key}:notes`, 'note BankTransfer', missing);
  await ctx.client.call('createBankTransferHistoryRecord', (api, t) =>
    api.createBankTransferHistoryRecord(t, transfer.id, records, key),
  );
  ctx.logger?.info(
    { key: doc.key, bankTransfer: transfer.id, receipts: receipts.length, notes: missing.length },
    'payout receipts noted on its transfer in xero',
  );
  return result;
}
