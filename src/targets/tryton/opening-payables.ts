import { ownerNote } from '../target-figures.js';
import type { PushContext, TargetDocument } from '../target-port.js';
import {
  type OpeningSide,
  openingMoveOf,
  opensReceivable,
  reconcileOpeningLine,
} from './opening-receivables.js';
import type { TrytonSession } from './session.js';

// A bill's opening document (a bill of last period still owed when the books open: Dr Opening Balances /
// Cr Accounts Payable, ledger opening-bill.ts) is no supplier invoice in Tryton: account_invoice 8.2 takes
// on an in invoice's line only an account whose type is expense (InvoiceLine._account_domain('in')), and
// Opening Balances is equity. As for an opening receivable (opening-receivables.ts), Tryton enters a payable
// brought forward as its balance move does: a move Cr the payable with the vendor and its maturity date
// (the bill's due date) / Dr the opening account. The bill's payments after the opening are moves on the
// vendor's payable (their description notes the bill); once the bill's lines on the payable balance, they
// are reconciled with the opening line by Tryton's Reconcile Lines, so the payable is closed as the
// service's bill is paid.

/** A bill's opening document: the bill, its other side Opening Balances instead of an expense. */
export function opensPayable(document: TargetDocument): boolean {
  return (
    document.kind === 'bill' &&
    document.lines.some((l) => l.role === 'AccountsPayable' && l.amountCents < 0) &&
    document.lines.some((l) => l.role === 'OpeningBalances' && l.amountCents > 0)
  );
}

/** The side an opening document (an invoice's or a bill's) brings forward; null for any other document. */
export function openingSideOf(document: TargetDocument): OpeningSide | null {
  if (opensReceivable(document)) return 'AccountsReceivable';
  return opensPayable(document) ? 'AccountsPayable' : null;
}

/** Whether money on the payable of a bill (a payment sent) may close the bill's opening payable (a move). */
export function paysPayable(document: TargetDocument): boolean {
  return (
    document.bill !== undefined &&
    document.kind !== 'bill' &&
    document.lines.some((l) => l.role === 'AccountsPayable' && l.amountCents > 0)
  );
}

/** Whether the document pays a bill Tryton holds as an opening payable, as the index knows it. */
export function settlesOpeningPayable(document: TargetDocument, context: PushContext): boolean {
  if (!paysPayable(document) || !document.bill) return false;
  const known = context.pushed(`bill:${document.bill.billId}`);
  return (
    known !== null &&
    !known.remoteIds.some((r) => r.startsWith('account.invoice,')) &&
    known.remoteIds.some((r) => r.startsWith('account.move,'))
  );
}

/**
 * After money on a bill's payable is posted: when the bill is an opening payable still open, and the bill's
 * open lines on the vendor's payable (the opening line and the payments' lines) balance, they are
 * reconciled. A part payment leaves them open: the opening line's remainder is what the bill still owes.
 */
export async function reconcileOpeningPayable(
  s: TrytonSession,
  document: TargetDocument,
  context: PushContext,
): Promise<void> {
  if (!paysPayable(document) || !document.bill) return;
  const move = await openingMoveOf(s, `bill:${document.bill.billId}`, context);
  if (move === null) return;
  await reconcileOpeningLine(s, move, ownerNote(document.bill), 'credit');
}
