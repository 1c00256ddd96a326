import { amountToCents, centsToAmount } from '../decimal-amounts.js';
import { TargetConflictError, TargetRefusedError } from '../errors.js';
import { marker } from '../markers.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { create, read } from './entity-calls.js';
import { idempotencyKey } from './keys.js';
import { owedAgainAfterLock } from './locked-allocations.js';
import { marked } from './look-ups.js';
import { partIn, partReference } from './payment-parts.js';
import { type Body, dayOf, idOf, itemErrors, markerText, markOf } from './records.js';

// A contact's credit booked as a Xero overpayment (a RECEIVE-OVERPAYMENT bank transaction: money that paid
// more than was owed) reversed as Xero documents it. An overpayment is AUTHORISED, PAID or VOIDED, never
// DELETED (xero_accounting.yaml `Overpayment.Status`; XeroAPI/Xero-Net#63), so its bank transaction is not
// set DELETED: the credit's allocations to invoices are removed (`DELETE /Overpayments/{id}/Allocations/{id}`,
// those invoices owed again) and what is left is refunded, a Payment against the overpayment out of the bank
// account the money came into (Xero's refund of an overpayment, https://developer.xero.com/documentation/api/
// accounting/payments), dated the reversal's day in the open period. The refund carries the reversal's marker
// (and its part's tag when the money came in parts), so a push again finds it instead of refunding twice.
// After a lock, an allocation dated in the locked period is never removed: what it holds is owed again by
// documents of the open period (locked-allocations.ts).

/**
 * The overpayment of `bankTransaction` refunded for the reversal `doc`: the refund's PushResult. Allocations
 * dated on or before `lock` are not removed (the locked month stays as it is): the part they hold is owed
 * again by documents of its own (locked-allocations.ts), listed after the refund.
 */
export async function refundOverpayment(
  ctx: XeroContext,
  doc: TargetDocument,
  bankTransaction: Body,
  context: PushContext,
  tag: string | null,
  lock: string | null = null,
): Promise<PushResult> {
  const made = (await marked(ctx, 'Payment', doc.key)).find((r) => partIn(markerText('Payment', r)) === tag);
  if (made) {
    const stored = markOf('Payment', made, doc.key)?.contentHash ?? '';
    if (stored !== doc.contentHash) throw new TargetConflictError(ctx.name, doc.key, stored, doc.contentHash);
  }
  const id = String(bankTransaction.overpaymentID ?? '');
  if (!id) {
    throw new TargetRefusedError(
      ctx.name,
      `${doc.key}: Xero names no overpayment on bank transaction ${idOf('BankTransaction', bankTransaction)}`,
    );
  }
  const answer = await ctx.client.call('getOverpayment', (api, t) => api.getOverpayment(t, id));
  const overpayment = (answer.overpayments?.[0] ?? {}) as Body;
  const live = ((overpayment.allocations ?? []) as Body[]).filter((a) => a.isDeleted !== true);
  const inLock = (a: Body) => lock !== null && (dayOf(a.date) ?? '') <= lock;
  const lockedCents = live.filter(inLock).reduce((sum, a) => sum + amountToCents(Number(a.amount ?? 0)), 0);
  const remoteIds: string[] = made ? [`Payment:${idOf('Payment', made)}`] : [];
  let created = false;
  if (!made) {
    const refunded = await refundWhatIsLeft(
      ctx,
      doc,
      bankTransaction,
      id,
      overpayment,
      live.filter((a) => !inLock(a)),
      {
        tag,
        context,
        lockedCents,
      },
    );
    remoteIds.push(...refunded);
    created = refunded.length > 0;
  }
  if (lockedCents > 0) {
    const owed = await owedAgainAfterLock(ctx, doc, bankTransaction, lockedCents, tag, context);
    remoteIds.push(...owed.remoteIds);
    created ||= owed.created;
  }
  return { key: doc.key, remoteIds, contentHash: doc.contentHash, created };
}

/**
 * The credit's allocations outside the lock removed (those invoices owed again) and what the credit then has
 * left refunded, a Payment against the overpayment; its remoteIds, none when nothing is left (all of it
 * allocated in the locked month). Refused when nothing at all is left to reverse.
 */
async function refundWhatIsLeft(
  ctx: XeroContext,
  doc: TargetDocument,
  bankTransaction: Body,
  id: string,
  overpayment: Body,
  removable: Body[],
  options: { tag: string | null; context: PushContext; lockedCents: number },
): Promise<string[]> {
  let cents = amountToCents(Number(overpayment.remainingCredit ?? 0));
  for (const allocation of removable) {
    await ctx.client.call('deleteOverpaymentAllocations', (api, t) =>
      api.deleteOverpaymentAllocations(t, id, String(allocation.allocationID)),
    );
    cents += amountToCents(Number(allocation.amount ?? 0));
  }
  if (cents <= 0) {
    if (options.lockedCents > 0) return [];
    throw new TargetRefusedError(
      ctx.name,
      `${doc.key}: overpayment ${id} has no credit left to refund (refunded in Xero already)`,
    );
  }
  const body = {
    overpayment: { overpaymentID: id },
    account: { accountID: bankTransaction.bankAccount?.accountID },
    date: doc.date,
    amount: centsToAmount(cents),
    reference: partReference(
      marker(doc.key, doc.contentHash),
      options.tag === null ? null : { tag: options.tag },
    ),
  };
  const [outcome] = await create(ctx, 'Payment', [{ doc, body }], options.context);
  if (outcome instanceof Error) throw outcome;
  ctx.logger?.info(
    { key: doc.key, overpayment: id, allocationsRemoved: removable.length, lockedCents: options.lockedCents },
    'refunded an overpayment in xero',
  );
  return (outcome as PushResult).remoteIds;
}

/**
 * After close, the customer's credit whose money went back (a reversal of money in parts, the credit one of
 * them) is allocated to the invoice the reversal made for it, the amount the customer owes again for that
 * part (`PUT /Overpayments/{id}/Allocations`, Xero's way to apply an overpayment to an invoice:
 * https://developer.xero.com/documentation/api/accounting/overpayments), dated the reversal's day in the open
 * period: the credit leaves the contact with the money, the invoice owes nothing for it, and the locked
 * overpayment, its allocations and refunds stay as they are. Up to what the credit has left and the invoice
 * owes: a part a bookkeeper allocated in the locked month stays owed on the invoice. A push again finds
 * nothing left to allocate.
 */
export async function allocateToOwedAgain(
  ctx: XeroContext,
  doc: TargetDocument,
  bankTransaction: Body,
  invoiceId: string,
): Promise<void> {
  const id = String(bankTransaction.overpaymentID ?? '');
  if (!id) return;
  const answer = await ctx.client.call('getOverpayment', (api, t) => api.getOverpayment(t, id));
  const overpayment = (answer.overpayments?.[0] ?? {}) as Body;
  const invoice = await read(ctx, 'Invoice', invoiceId);
  if (overpayment.status !== 'AUTHORISED' || invoice?.status !== 'AUTHORISED') return;
  const cents = Math.min(
    amountToCents(Number(overpayment.remainingCredit ?? 0)),
    amountToCents(Number(invoice.amountDue ?? 0)),
  );
  if (cents <= 0) return;
  const allocations = [{ invoice: { invoiceID: invoiceId }, amount: centsToAmount(cents), date: doc.date }];
  const key = idempotencyKey(
    ctx.client.tenantId,
    `${doc.key}:credit:${id}`,
    'allocate Overpayment',
    allocations,
  );
  const made = await ctx.client.call('createOverpaymentAllocations', (api, t) =>
    api.createOverpaymentAllocations(t, id, { allocations: allocations as never[] }, false, key),
  );
  const errors = (made.allocations ?? []).flatMap((a) => itemErrors(a as Body));
  if (errors.length > 0) throw new TargetRefusedError(ctx.name, `ValidationException: ${errors.join('; ')}`);
  ctx.logger?.info(
    { key: doc.key, overpayment: id, invoice: invoiceId, cents },
    'customer credit allocated to the invoice owed again in xero',
  );
}
