import { TargetRefusedError } from '../errors.js';
import { spreadInOrder } from '../spread-in-order.js';
import type { InvoiceRow } from './helpers.js';
import { centsOf } from './json-rpc.js';
import { invoicesProcessed, settledInvoiceFields } from './reconciliation.js';
import { invoicesNamed } from './reversal-parts.js';
import type { TrytonSession } from './session.js';

// The invoice (or bill) a payment paid, owed again when the payment is reversed after its reconciliation's
// period closed. That reconciliation (the payment line with the invoice's line to pay) is dated in the closed
// period and stays: removing it would change the closed month's books. Instead the reversing move, dated in
// the open period, becomes one of the invoice's *additional moves*, as Tryton itself attaches a move that
// changes what an invoice is owed: its Reschedule Lines to Pay and Modify Payee wizards add the move they make
// to the invoice's additional moves, and cancelling a posted invoice adds the cancel moves of them
// (https://docs.tryton.org/latest/modules-account-invoice/design.html#wizard-account-invoice-lines-to-pay-reschedule;
// trytond account_invoice 8.2, `account.py` RescheduleLines / DelegateLines, `invoice.py` Invoice.cancel).
// An invoice's lines to pay are its move's and its additional moves' lines on its account
// (`Invoice._query_lines_to_pay`), and its amount to pay counts those not reconciled
// (`Invoice.get_amount_to_pay`): the reversal's open receivable (or payable) line is then what the invoice
// owes, the service's remainder, on the invoice a bookkeeper opens, its additional move the returned
// payment's reversal. Tryton's Process (`Invoice.process`: paid when every line to pay is reconciled, else
// posted) turns the paid invoice back to posted; nothing dated in the closed period changes.

/** A line of the reversal left open because the line it reverses is reconciled in a closed period. */
export interface KeptLine {
  /** The reversal's line, open on the party. */
  line: number;
  /** The line it reverses, reconciled in the closed period. */
  reversed: number;
}

/**
 * Makes the invoice the reversed lines paid owe the reversal's open lines again: the reversal move added to
 * its additional moves (once: a push again finds it there), then the invoice processed by Tryton back to
 * posted. Lines of no invoice (money beyond what was owed, the customer's credit) are left open on the party.
 * A payment that paid several invoices is reversed in parts, one move per invoice (reversal-parts.ts), so a
 * move's kept lines are one invoice's: a move's lines on the invoice account are lines to pay of every
 * invoice it is an additional move of.
 */
export async function invoiceOwedAgain(
  s: TrytonSession,
  reversalId: number,
  kept: readonly KeptLine[],
): Promise<void> {
  if (kept.length === 0) return;
  const reversed = await s.rpc.model<{ id: number; invoice_payment: number | null }[]>(
    'account.move.line',
    'read',
    kept.map((k) => k.reversed),
    ['invoice_payment'],
  );
  const invoices = [
    ...new Set(reversed.flatMap((l) => (l.invoice_payment !== null ? [l.invoice_payment] : []))),
  ];
  if (invoices.length !== 1) {
    if (invoices.length > 1)
      s.options.logger?.warn(
        { reversal: reversalId, invoices },
        'reversal of a payment of several invoices after close: left open on the party, on no invoice',
      );
    return;
  }
  const invoiceId = invoices[0] as number;
  const [invoice] = await s.rpc.model<{ state: string; additional_moves: number[] }[]>(
    'account.invoice',
    'read',
    [invoiceId],
    ['state', 'additional_moves'],
  );
  if (!invoice || (invoice.state !== 'posted' && invoice.state !== 'paid')) return;
  if (!invoice.additional_moves.includes(reversalId)) {
    // Allowed on a posted or paid invoice: additional_moves is among the fields Tryton lets change after
    // posting (`Invoice._check_modify_exclude`).
    await s.rpc.model('account.invoice', 'write', [invoiceId], {
      additional_moves: [['add', [reversalId]]],
    });
  }
  if (invoice.state === 'paid') {
    try {
      await s.rpc.model('account.invoice', 'process', [invoiceId]);
    } catch (error) {
      if (!(error instanceof TargetRefusedError)) throw error;
      throw new TargetRefusedError(
        s.name,
        `invoice ${invoiceId} is owed again (reversal move ${reversalId}) but Tryton refused to process it back to posted: its Process button is the Account Administration group's (${error.targetMessage})`,
      );
    }
  }
  // Processed in the request; a reconciliation queued before may still be the worker's: its state waited for.
  await invoicesProcessed(
    s,
    kept.map((k) => k.line),
  );
}

/**
 * Money the ledger applies to a returned payment of several invoices (a link's invoice and its memos), spread
 * over the invoices it owes again, oldest first (the link's invoice, then its memos): each takes what it
 * owes, the last the rest (beyond it, the party's, as on any invoice). The reversal's lines name the invoices
 * the lines they reverse paid (reversal-parts.ts paidNote), whether the reversal is in parts after close or
 * undid the payment's reconciliation. Null when fewer than two
 * invoices are owed again: the ledger's `reopens` then names the one, or the money stays on the party.
 */
export async function spreadOverOwedAgain(
  s: TrytonSession,
  reversalMoves: readonly number[],
  cents: number,
): Promise<{ invoice: InvoiceRow; cents: number }[] | null> {
  if (reversalMoves.length === 0) return null;
  const lines = await s.rpc.searchRead<{ description: string | null }>(
    'account.move.line',
    [['move', 'in', [...reversalMoves]]],
    ['description'],
  );
  const named = invoicesNamed(lines.map((l) => l.description));
  if (named.length < 2) return null;
  const invoices = (
    await s.rpc.model<InvoiceRow[]>('account.invoice', 'read', named, settledInvoiceFields)
  ).filter((i) => i.state === 'posted' || i.state === 'paid');
  if (invoices.length < 2) return null;
  invoices.sort((a, b) => a.id - b.id);
  const shares = await spreadInOrder(invoices, cents, (invoice) => centsOf(invoice.amount_to_pay));
  return shares.map(({ item, cents: part }) => ({ invoice: item, cents: part }));
}
