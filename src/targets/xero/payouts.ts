import type { PayoutReceipt, PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { idempotencyKey } from './keys.js';
import { earlier } from './look-ups.js';
import { payoutNotes, receiptsInNotes, reversalNote, reversalsInNotes } from './payout-notes.js';
import { parseRemoteId } from './records.js';

// A payout's transfer at Xero, noted with the receipts it carries and with those reversed since (README,
// "Payouts").

/** The notes of a transfer's History & Notes, oldest first. */
async function notesOf(ctx: XeroContext, transferId: string): Promise<string[]> {
  const history = await ctx.client.call('getBankTransferHistory', (api, t) =>
    api.getBankTransferHistory(t, transferId),
  );
  return (history.historyRecords ?? []).map((r) => String(r.details ?? ''));
}

/** Notes added to a transfer's History & Notes in one request (Xero keeps each as given, never edited). */
async function addNotes(ctx: XeroContext, transferId: string, keyBase: string, notes: string[]) {
  const records = { historyRecords: notes.map((details) => ({ details })) };
  const key = idempotencyKey(ctx.client.tenantId, keyBase, 'note BankTransfer', notes);
  await ctx.client.call('createBankTransferHistoryRecord', (api, t) =>
    api.createBankTransferHistoryRecord(t, transferId, records, key),
  );
}

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
  const have = new Set(await notesOf(ctx, transfer.id));
  const missing = notes.filter((n) => !have.has(n));
  if (missing.length === 0) return result;
  await addNotes(ctx, transfer.id, `${doc.key}:notes`, missing);
  ctx.logger?.info(
    { key: doc.key, bankTransfer: transfer.id, receipts: receipts.length, notes: missing.length },
    'payout receipts noted on its transfer in xero',
  );
  return result;
}

/**
 * A reversal of a receipt a payout carried (TargetDocument.carriedBy: the payout's key), once pushed: the
 * payout's transfer gets a note saying the receipt was reversed since, by which reversal, when and why
 * (payout-notes.ts), so its notes never list as standing a payment Xero shows deleted or reversed. Only a
 * receipt the transfer's notes list (a payout pushed after the reversal was booked does not list it), and
 * only once: the notes are read first and a note of this reversal already there is not added again. Nothing
 * when the payout has no transfer at Xero.
 */
export async function reversalNoted(
  ctx: XeroContext,
  doc: TargetDocument,
  context: PushContext,
): Promise<void> {
  if (!doc.carriedBy || !doc.reverses) return;
  const transfer = await earlier(ctx, doc.carriedBy, context);
  if (transfer?.entity !== 'BankTransfer') return;
  const notes = await notesOf(ctx, transfer.id);
  const receipt = receiptsInNotes(notes).find((r) => r.key === doc.reverses);
  if (!receipt || reversalsInNotes(notes).some((r) => r.by === doc.key)) return;
  await addNotes(ctx, transfer.id, `${doc.key}:payout-note`, [reversalNote(receipt, doc)]);
  ctx.logger?.info(
    { key: doc.key, payout: doc.carriedBy, bankTransfer: transfer.id },
    'receipt reversed since noted on its payout’s transfer in xero',
  );
}
