import { amountToCents } from '../decimal-amounts.js';
import type { PayoutReceipt, PushContext, TargetDocument } from '../target-port.js';
import type { Ref } from './accounts.js';
import type { LinkedReceipt } from './documents.js';
import { parseRemoteId } from './helpers.js';
import { locate } from './look-ups.js';
import type { QuickBooksSession } from './session.js';

// What a payout's Deposit links out of Undeposited Funds (Intuit's Deposit reference, Line: "Possible types of
// transactions that can be linked to a Deposit include: Transfer, Payment ..., SalesReceipt, RefundReceipt,
// JournalEntry"). Each line links one transaction for the amount it put in the clearing account: a payment's
// or sales receipt's total, a refund receipt's total taken out (negative), a journal's own line on the
// clearing account (a fee's credit: negative), named by its line Id (LinkedTxn.TxnLineId). A transaction
// linked so leaves QuickBooks' list of funds to deposit, as a bank deposit made in QuickBooks takes it.

/** The transactions a Deposit links by TxnLineId 0: their whole amount in Undeposited Funds. */
const wholeTransactions = new Set<string>(['Payment', 'SalesReceipt', 'RefundReceipt']);
type Whole = 'Payment' | 'SalesReceipt' | 'RefundReceipt';

type JournalLine = {
  Id?: string;
  Amount?: number;
  JournalEntryLineDetail?: { PostingType?: string; AccountRef?: { value?: string } };
};

/**
 * The QBO transactions of a payout's receipts and of what else it nets (surcharges' sales receipts, fees'
 * journals, refund receipts): each found in the push's index, else by its key on its own date. A receipt or deduction QBO does not hold is not linked: its money
 * stays in the deposit's line on the clearing account.
 */
export async function payoutLinks(
  s: QuickBooksSession,
  doc: TargetDocument,
  context: PushContext,
  clearing: Ref,
): Promise<LinkedReceipt[]> {
  const linked: LinkedReceipt[] = [];
  for (const entry of [...(doc.payout?.receipts ?? []), ...(doc.payout?.netted ?? [])]) {
    const found = await transactionOf(s, doc, entry, context);
    if (found && wholeTransactions.has(found.entity)) {
      const txnType = found.entity as Whole;
      linked.push({ txnId: found.id, txnType, txnLineId: '0', amountCents: entry.amountCents });
    } else if (found?.entity === 'JournalEntry') {
      linked.push(...(await journalLinks(s, found.id, clearing)));
    }
  }
  return linked;
}

async function transactionOf(
  s: QuickBooksSession,
  doc: TargetDocument,
  entry: PayoutReceipt,
  context: PushContext,
): Promise<{ entity: string; id: string } | null> {
  const hint: TargetDocument = { ...doc, key: entry.key, date: entry.date, kind: 'payment' };
  const record = context.pushed(entry.key) ?? (await locate(s, entry.key, hint));
  return parseRemoteId(record?.remoteIds[0]);
}

/**
 * A journal's lines on the clearing account, each linked by its line Id for its signed amount (a debit puts
 * money in, a credit takes it out): read from QBO, which numbers a journal's lines.
 */
export async function journalLinks(
  s: QuickBooksSession,
  id: string,
  clearing: Ref,
): Promise<LinkedReceipt[]> {
  const journal = await s.client.read('JournalEntry', id);
  const lines = (journal.Line as JournalLine[] | undefined) ?? [];
  return lines
    .filter((l) => l.Id !== undefined && l.JournalEntryLineDetail?.AccountRef?.value === clearing.value)
    .map((l) => ({
      txnId: id,
      txnType: 'JournalEntry' as const,
      txnLineId: l.Id as string,
      amountCents:
        (l.JournalEntryLineDetail?.PostingType === 'Debit' ? 1 : -1) * amountToCents(Number(l.Amount ?? 0)),
    }));
}
