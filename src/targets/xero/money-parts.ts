import type { AccountRole } from '../account-mapping.js';
import { amountToCents, centsToAmount } from '../decimal-amounts.js';
import { TargetConflictError, TargetRefusedError } from '../errors.js';
import { marker } from '../markers.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { overpayment, payment, taxed } from './documents.js';
import { create, read } from './entity-calls.js';
import { earlier, partsAt } from './look-ups.js';
import { spreadOverOwedAgain } from './owed-again-parts.js';
import { type PaymentPart, partReference, partsOf } from './payment-parts.js';
import { type Plan, pairOf, salesPayments } from './records.js';

// Money that settles several of a link's documents, pushed as Xero takes it (README, "Money in parts").

/**
 * Whether money settles several documents, told from the document alone: such money is found part by part
 * when it is placed, never by one look-up. (Money on what a reversal made owed again may be in parts too: a
 * look-up that finds a part leaves it to be placed, lookUpAll.)
 */
export function mayBeInParts(doc: TargetDocument): boolean {
  return isCustomerMoney(doc) && (partsOf(doc)?.length ?? 0) > 1;
}

/** A customer's money for the receivable, the only kind that may be in parts. */
function isCustomerMoney(doc: TargetDocument): boolean {
  return salesPayments.has(doc.kind) && pairOf(doc.lines)?.credit === 'AccountsReceivable';
}

/**
 * The parts of money that settles several documents (payment-parts.ts), a reversal Xero made as several
 * invoices counting as its invoices (owed-again-parts.ts); null for one record.
 */
export async function splitOf(
  ctx: XeroContext,
  doc: TargetDocument,
  context: PushContext,
): Promise<PaymentPart[] | null> {
  const given = isCustomerMoney(doc) ? partsOf(doc) : null;
  const parts = given && (await spreadOverOwedAgain(ctx, doc, given, context));
  return parts && (parts.length > 1 || parts.some((p) => p.invoiceId)) ? parts : null;
}

/**
 * Money that settles several of the link's documents: one Payment per document for its part, and the
 * customer's credit (RECEIVE-OVERPAYMENT) for what exceeds them (payment-parts.ts). Every invoice is
 * resolved before anything is created (one still in a batch's wave defers the whole document); when an
 * earlier attempt may have created some parts, they are found by the document's key and only the missing
 * ones are created. remoteIds: one per part, in the parts' order.
 */
export async function pushParts(
  ctx: XeroContext,
  doc: TargetDocument,
  parts: PaymentPart[],
  context: PushContext,
): Promise<PushResult> {
  const account = pairOf(doc.lines)?.debit as AccountRole;
  // Every invoice first: one still in a batch's wave defers the document before any part is created.
  const invoices = await invoicesOf(ctx, doc, parts, account, context);
  const have = context.mayExist(doc.key) ? await partsMade(ctx, doc) : new Map<string, string>();
  const final = await fitted(ctx, doc, parts, invoices, have);
  const planned = await partPlans(ctx, doc, final, invoices, account);
  const missing = planned.filter((p) => !have.has(p.part.tag));
  await createParts(ctx, doc, missing, have, context);
  return {
    key: doc.key,
    remoteIds: final.map((p) => have.get(p.tag) as string),
    contentHash: doc.contentHash,
    created: missing.length > 0,
  };
}

/** The Xero invoice of each part that settles a document (tag -> InvoiceID); refused when one is missing. */
async function invoicesOf(
  ctx: XeroContext,
  doc: TargetDocument,
  parts: PaymentPart[],
  account: AccountRole,
  context: PushContext,
): Promise<Map<string, string>> {
  const invoices = new Map<string, string>();
  for (const part of parts) {
    if (part.settles === null) continue;
    const invoice = part.invoiceId
      ? { entity: 'Invoice' as const, id: part.invoiceId }
      : await earlier(ctx, part.settles, context);
    if (invoice?.entity !== 'Invoice' || !(await ctx.accounts.takesPayments(account)))
      throw new TargetRefusedError(
        ctx.name,
        `${doc.key}: no Xero invoice of ${part.settles} to apply ${centsToAmount(part.cents)} to from ${account}`,
      );
    invoices.set(part.tag, invoice.id);
  }
  return invoices;
}

/** The parts an earlier attempt made (tag -> remoteId), found by the document's key. */
async function partsMade(ctx: XeroContext, doc: TargetDocument): Promise<Map<string, string>> {
  const have = new Map<string, string>();
  for (const found of (await partsAt(ctx, doc.key)).filter((p) => !p.deleted)) {
    if (found.contentHash !== doc.contentHash)
      throw new TargetConflictError(ctx.name, doc.key, found.contentHash, doc.contentHash);
    if (found.tag) have.set(found.tag, found.remoteId);
  }
  return have;
}

/**
 * A part its invoice at Xero cannot take (less owed there than in the ledger: a payment reversed after
 * close leaves the invoice paid and the amount owed again on an invoice of its own) is applied up to the
 * invoice's AmountDue, the rest the customer's credit, as a payment of one invoice is (pushAsCredit).
 */
async function fitted(
  ctx: XeroContext,
  doc: TargetDocument,
  parts: PaymentPart[],
  invoices: Map<string, string>,
  have: Map<string, string>,
): Promise<PaymentPart[]> {
  const final: PaymentPart[] = [];
  let shortfall = 0;
  for (const part of parts) {
    const id = invoices.get(part.tag);
    if (!id || have.has(part.tag)) {
      final.push(part);
      continue;
    }
    const invoice = await read(ctx, 'Invoice', id);
    const due = invoice?.status === 'AUTHORISED' ? amountToCents(Number(invoice.amountDue ?? 0)) : 0;
    const cents = Math.min(part.cents, due);
    shortfall += part.cents - cents;
    if (cents > 0) final.push({ ...part, cents });
  }
  if (shortfall > 0) {
    const credit = final.find((p) => p.settles === null);
    if (credit && !have.has(credit.tag)) credit.cents += shortfall;
    else if (!credit) final.push({ tag: 'credit', settles: null, cents: shortfall });
    ctx.logger?.info({ key: doc.key, shortfall }, "part of the money is the customer's credit in xero");
  }
  return final;
}

/** Each part's document: a Payment against its invoice, or the customer's credit (RECEIVE-OVERPAYMENT). */
async function partPlans(
  ctx: XeroContext,
  doc: TargetDocument,
  final: PaymentPart[],
  invoices: Map<string, string>,
  account: AccountRole,
): Promise<{ part: PaymentPart; plan: Plan }[]> {
  const mark = marker(doc.key, doc.contentHash);
  const planned: { part: PaymentPart; plan: Plan }[] = [];
  for (const part of final) {
    const id = invoices.get(part.tag);
    if (id) {
      planned.push({ part, plan: payment(ctx, doc, id, account, part) });
      continue;
    }
    if (!(await ctx.accounts.isBank(account)))
      throw new TargetRefusedError(
        ctx.name,
        `${doc.key}: ${account} is not a bank account for the customer's credit`,
      );
    planned.push({
      part,
      plan: await overpayment(ctx, doc, account, part.cents, partReference(mark, part)),
    });
  }
  return planned;
}

/** The parts not made yet created, a request per entity; each made one's remoteId added to `have`. */
async function createParts(
  ctx: XeroContext,
  doc: TargetDocument,
  missing: { part: PaymentPart; plan: Plan }[],
  have: Map<string, string>,
  context: PushContext,
): Promise<void> {
  const refusals: Error[] = [];
  for (const entity of ['Payment', 'BankTransaction'] as const) {
    const items = missing.filter((p) => p.plan.entity === entity);
    if (items.length === 0) continue;
    const bodies = await Promise.all(items.map(async (p) => (await taxed(ctx, p.plan)).body));
    const outcomes = await create(
      ctx,
      entity,
      bodies.map((body) => ({ doc, body })),
      context,
    );
    outcomes.forEach((outcome, j) => {
      if (outcome instanceof Error) refusals.push(outcome);
      else have.set((items[j] as { part: PaymentPart }).part.tag, outcome.remoteIds[0] as string);
    });
  }
  // A part refused: the others stay, found by the key when the push is retried.
  if (refusals[0]) throw refusals[0];
}
