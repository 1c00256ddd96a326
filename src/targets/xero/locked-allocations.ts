import { TargetConflictError } from '../errors.js';
import { marker } from '../markers.js';
import { ownerNote } from '../target-figures.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { oneLine, taxed } from './documents.js';
import { create } from './entity-calls.js';
import { numberTag } from './keys.js';
import { marked } from './look-ups.js';
import { partIn, partReference } from './payment-parts.js';
import { type Body, idOf, markerText, markOf, type Plan } from './records.js';

// A customer's credit (an overpayment) returned after its month is locked, when part of it paid invoices in
// that month (allocations a bookkeeper made, dated in the locked period). Removing those allocations would
// change the locked month (Xero refuses it: "The document date cannot be before the period lock date"), so
// they stay, and the invoices they paid stay paid; the money they stood for left with the return all the same.
// That part is reversed as a payment returned after close is (reversals.ts, Xero's dishonoured payment): an
// ACCREC invoice for what the customer owes again and a SPEND of it out of the bank account the credit came
// into, both on Refunds, where they net to nothing, dated the return in the open period; each carries the
// reversal's marker and the tag `part=<credit's tag>-locked`, so a push again finds them.

/** The documents for the `cents` of a credit allocated in a locked month, found or created. */
export async function owedAgainAfterLock(
  ctx: XeroContext,
  doc: TargetDocument,
  bankTransaction: Body,
  cents: number,
  tag: string | null,
  context: PushContext,
): Promise<{ remoteIds: string[]; created: boolean }> {
  const part = tag === null ? 'locked' : `${tag}-locked`;
  const remoteIds: string[] = [];
  let created = false;
  for (const plan of plans(ctx, doc, bankTransaction, cents, part)) {
    const existing = (await marked(ctx, plan.entity, doc.key)).find(
      (r) => partIn(markerText(plan.entity, r)) === part,
    );
    if (existing) {
      const stored = markOf(plan.entity, existing, doc.key)?.contentHash ?? '';
      if (stored !== doc.contentHash)
        throw new TargetConflictError(ctx.name, doc.key, stored, doc.contentHash);
      remoteIds.push(`${plan.entity}:${idOf(plan.entity, existing)}`);
      continue;
    }
    const [outcome] = await create(ctx, plan.entity, [{ doc, body: (await taxed(ctx, plan)).body }], context);
    if (outcome instanceof Error) throw outcome;
    remoteIds.push(...(outcome as PushResult).remoteIds);
    created = true;
  }
  return { remoteIds, created };
}

function plans(ctx: XeroContext, doc: TargetDocument, bankTransaction: Body, cents: number, part: string) {
  const mark = marker(doc.key, doc.contentHash);
  const contact = { contactID: String(bankTransaction.contact?.contactID ?? '') };
  const refunds = ctx.accounts.code('Refunds');
  const invoice: Plan = {
    entity: 'Invoice',
    body: {
      type: 'ACCREC',
      contact,
      date: doc.date,
      dueDate: doc.date,
      invoiceNumber: numberTag(`${doc.key} part=${part}`),
      reference: partReference(mark, { tag: part }, doc.invoice ? ownerNote(doc.invoice) : ''),
      status: 'AUTHORISED',
      lineItems: oneLine(`${doc.description} (credit allocated before the lock)`, cents, refunds),
    },
  };
  const spend: Plan = {
    entity: 'BankTransaction',
    body: {
      type: 'SPEND',
      contact,
      bankAccount: { accountID: bankTransaction.bankAccount?.accountID },
      date: doc.date,
      reference: partReference(mark, { tag: part }),
      lineItems: oneLine(doc.description, cents, refunds),
    },
  };
  return [invoice, spend];
}
