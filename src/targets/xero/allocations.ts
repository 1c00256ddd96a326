import { amountToCents, centsToAmount } from '../decimal-amounts.js';
import { TargetRefusedError } from '../errors.js';
import type { DocumentApplication, PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { read } from './entity-calls.js';
import { idempotencyKey } from './keys.js';
import { earlier } from './look-ups.js';
import { invoicesOfKey } from './owed-again-parts.js';
import { noted, reversalNoted } from './payouts.js';
import { type Body, itemErrors, parseRemoteId } from './records.js';

// What a document pushed still needs at Xero: a lowered invoice's credit note allocated to the link's
// invoices (README, "What appears in Xero": lowered amount), and to a later charge's invoice, a payout's transfer noted with its receipts and
// with a receipt reversed since (payouts.ts).

/**
 * What a document pushed still needs at Xero: a lowered invoice's credit note allocated to the link's
 * invoices as the ledger split it (TargetDocument.settles: the link's own first, then a raise's or a
 * memo's charge invoice; PUT CreditNotes/{id}/Allocations, Xero's way to apply a credit note: "Allocate
 * credit notes to invoices", https://developer.xero.com/documentation/api/accounting/creditnotes#allocations),
 * so the invoices' AmountDue is the service's remainder, as booksync's ledger says; each up to what the
 * credit has left and the invoice still owes (what no invoice owes stays the customer's credit).
 * Idempotent: a credit note found again allocates only what it has left.
 */
export async function settled(
  ctx: XeroContext,
  doc: TargetDocument,
  result: PushResult,
  context: PushContext,
): Promise<PushResult> {
  if (doc.kind === 'disbursement-pending' && doc.payout) return noted(ctx, doc, doc.payout.receipts, result);
  if (doc.kind === 'reversal') {
    // The credit a lowering left the customer, allocated again to the invoices the reversal reopened.
    for (const { credit, applied } of doc.reapplies ?? []) {
      const found = await earlier(ctx, credit, context);
      if (found?.entity === 'CreditNote')
        await allocate(ctx, doc, found.id, applied, `${doc.key}:reallocation:${credit}`, context);
    }
    // A receipt a payout carried: its transfer noted that it was reversed since (payouts.ts).
    await reversalNoted(ctx, doc, context);
    return result;
  }
  const made = parseRemoteId(result.remoteIds[0]);
  if (doc.reapplies && made?.entity === 'Invoice') {
    // A charge on the link (a raise, a memo, a reopened amount): the credit a lowering left the customer
    // allocated to its invoice, as a bookkeeper applies it to a new charge.
    for (const { credit, applied } of doc.reapplies) {
      const found = await earlier(ctx, credit, context);
      if (found?.entity === 'CreditNote')
        await allocate(ctx, doc, found.id, applied, `${doc.key}:allocation:${credit}`, context, made.id);
    }
    return result;
  }
  if (doc.kind !== 'invoice-adjustment' || !doc.invoice) return result;
  const credit = made;
  if (credit?.entity !== 'CreditNote') return result;
  // The link's invoices the credit goes to, as the ledger applied it (its own first, then a raise's or a
  // memo's charge invoice); a lowering booked before that split, on the link's own invoice for all of it.
  const own = `invoice:${doc.invoice.paymentLinkId}`;
  const parts = doc.settles?.applied ?? [{ key: own, amountCents: Number.MAX_SAFE_INTEGER }];
  await allocate(ctx, doc, credit.id, parts, `${doc.key}:allocation`, context);
  return result;
}

/**
 * Allocates what the credit note `creditId` has left to the link's invoices `parts` name, each up to what
 * the part says, the credit has left and the invoice still owes; nothing when no invoice owes. `charge`:
 * the Xero invoice of `doc` itself, made by this push (none looked up).
 */
async function allocate(
  ctx: XeroContext,
  doc: TargetDocument,
  creditId: string,
  parts: readonly DocumentApplication[],
  keyBase: string,
  context: PushContext,
  charge?: string,
): Promise<void> {
  const note = await read(ctx, 'CreditNote', creditId);
  let remaining = amountToCents(Number(note?.remainingCredit ?? 0));
  if (remaining <= 0 || note?.status !== 'AUTHORISED') return;
  const allocations: { invoice: { invoiceID: string }; amount: number; date: string }[] = [];
  for (const part of parts) {
    // A reversal Xero made as several invoices owed again: each in turn (owed-again-parts.ts).
    const invoiceIds =
      charge && part.key === doc.key ? [charge] : await invoicesOfKey(ctx, part.key, context);
    let partLeft = part.amountCents;
    for (const invoiceId of invoiceIds) {
      const invoice = await read(ctx, 'Invoice', invoiceId);
      const due = amountToCents(Number(invoice?.amountDue ?? 0));
      const cents = Math.min(remaining, due, partLeft);
      if (cents <= 0 || invoice?.status !== 'AUTHORISED') continue;
      allocations.push({ invoice: { invoiceID: invoiceId }, amount: centsToAmount(cents), date: doc.date });
      remaining -= cents;
      partLeft -= cents;
    }
  }
  if (allocations.length === 0) return;
  const key = idempotencyKey(ctx.client.tenantId, keyBase, 'allocate CreditNote', allocations);
  const answer = await ctx.client.call('createCreditNoteAllocation', (api, t) =>
    api.createCreditNoteAllocation(t, creditId, { allocations: allocations as never[] }, false, key),
  );
  const errors = (answer.allocations ?? []).flatMap((a) => itemErrors(a as Body));
  if (errors.length > 0) {
    throw new TargetRefusedError(ctx.name, `ValidationException: ${errors.join('; ')}`);
  }
  ctx.logger?.info(
    { key: doc.key, creditNote: creditId, allocations },
    "credit note allocated to the link's invoices in xero",
  );
}
