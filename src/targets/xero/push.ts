import { alreadyPushed } from '../already-pushed.js';
import { datedOpen, laterOf } from '../closed-periods.js';
import { TargetRefusedError } from '../errors.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import { settled } from './allocations.js';
import type { XeroContext } from './context.js';
import { planDocument } from './documents.js';
import { create } from './entity-calls.js';
import { lookupOne } from './look-ups.js';
import { pushParts, splitOf } from './money-parts.js';
import { entitiesOf, overpaidRefusal, type XeroEntity } from './records.js';
import { reverse } from './reversals.js';

// One document pushed to Xero: found by its marker when an earlier attempt may have made it, else created
// with an Idempotency-Key, dated out of the locked period, then settled (allocations.ts).

/** Xero's refusal of a document dated on or before a lock date. */
const LOCKED = /cannot be before the (period|end of year) lock date/i;

/** The effective lock: the later of Xero's lock dates and the ledger's closed-through day. */
export async function effectiveLock(ctx: XeroContext, context: PushContext): Promise<string | null> {
  return laterOf(await ctx.locks.get(), context.closedThrough);
}

export async function pushDocument(
  ctx: XeroContext,
  document: TargetDocument,
  context: PushContext,
): Promise<PushResult> {
  try {
    return await pushOpen(ctx, document, context);
  } catch (error) {
    // A lock date set since it was read: read it again and date the document after it.
    if (!(error instanceof TargetRefusedError && LOCKED.test(error.targetMessage))) throw error;
    ctx.locks.forget();
    return pushOpen(ctx, document, context);
  }
}

async function pushOpen(ctx: XeroContext, given: TargetDocument, context: PushContext): Promise<PushResult> {
  const lock = await effectiveLock(ctx, context);
  if (given.kind === 'reversal')
    return settled(ctx, given, await reverse(ctx, given, context, lock), context);
  const document = datedOpen(given, lock);
  const parts = await splitOf(ctx, document, context);
  if (parts) return pushParts(ctx, document, parts, context);
  const entities = entitiesOf(document.key);
  const primary = entities[0] as XeroEntity;
  // Looked up only when an earlier attempt may have created it (PushContext.mayExist).
  const mayExist = context.mayExist(document.key);
  const existing = mayExist ? await lookupOne(ctx, primary, document) : null;
  if (existing) return settled(ctx, document, alreadyPushed(ctx.name, existing, document), context);
  const plan = await planDocument(ctx, document, context);
  if ('found' in plan) return plan.found;
  if (mayExist && plan.entity !== primary) {
    const fallback = await lookupOne(ctx, plan.entity, document);
    if (fallback) return alreadyPushed(ctx.name, fallback, document);
  }
  const [outcome] = await create(ctx, plan.entity, [{ doc: document, body: plan.body }], context);
  if (plan.entity === 'Payment' && overpaidRefusal(document, outcome))
    return pushAsCredit(ctx, document, context);
  if (outcome instanceof Error) throw outcome;
  return settled(ctx, document, outcome as PushResult, context);
}

/**
 * A payment the invoice cannot take (more than its AmountDue, e.g. a link's debit memo paid with its own
 * amount, or a payment after a refund reopened the link, when the invoice is PAID): the customer's credit,
 * a RECEIVE-OVERPAYMENT bank transaction, so the money and the receivable still match the ledger.
 */
export async function pushAsCredit(
  ctx: XeroContext,
  doc: TargetDocument,
  context: PushContext,
): Promise<PushResult> {
  const existing = context.mayExist(doc.key) ? await lookupOne(ctx, 'BankTransaction', doc) : null;
  if (existing) return alreadyPushed(ctx.name, existing, doc);
  const plan = await planDocument(ctx, doc, context, true);
  if ('found' in plan) return plan.found;
  const [outcome] = await create(ctx, plan.entity, [{ doc, body: plan.body }], context);
  if (outcome instanceof Error) throw outcome;
  return outcome as PushResult;
}
