import { baseKey, keyPrefix } from '../../ledger/entry-key.js';
import type { AccountRole } from '../account-mapping.js';
import { datedOpen, reversesInPlace } from '../closed-periods.js';
import { amountToCents, centsToAmount } from '../decimal-amounts.js';
import { dueDateOf } from '../documents.js';
import { TargetConflictError, TargetRefusedError } from '../errors.js';
import { marker } from '../markers.js';
import { ownerNote, withOwnerNote } from '../target-figures.js';
import type { Party, PushContext, PushResult, TargetDocument } from '../target-port.js';
import { unnamedCustomer } from './contacts.js';
import type { XeroContext } from './context.js';
import { moneyMove, oneLine, taxed } from './documents.js';
import { cancel, create, read } from './entity-calls.js';
import { isRefusedInPlace } from './faults.js';
import { numberTag } from './keys.js';
import { find, lookupOne, marked, reversingDocuments } from './look-ups.js';
import { allocateToOwedAgain, refundOverpayment } from './overpayments.js';
import { partIn, partReference } from './payment-parts.js';
import {
  type Body,
  dayOf,
  deletedStatuses,
  idOf,
  isOverpayment,
  markerText,
  markOf,
  type Plan,
  pairOf,
  parseRemoteId,
  salesPayments,
  type XeroEntity,
} from './records.js';

// A reversal at Xero (README, "Reversals after close"): in the same open month Xero's own cancel of the
// original; across months or into a locked period, new documents dated in the open period.

/**
 * In the same open month as its original: Xero's own cancel of the original, a payment DELETED (its invoice
 * or bill is owed again), an invoice or credit note VOIDED, a bank transaction or bank transfer DELETED, a
 * manual journal VOIDED. Xero refuses to void an invoice with a payment applied, and to delete a reconciled
 * payment: the reversal is then the documents made after a close, dated the reversal's date (movedOn). Read first: an
 * original already cancelled is found. Across months or into a locked period the original is never touched:
 * reversing documents dated in the open period carry the reversal's marker (reversingPlans). A customer's
 * credit (an overpayment) is refunded in the open period in either case (overpayments.ts).
 */
export async function reverse(
  ctx: XeroContext,
  given: TargetDocument,
  context: PushContext,
  lock: string | null,
): Promise<PushResult> {
  const doc = datedOpen(given, lock);
  const record = doc.reverses
    ? ((await context.pushed(doc.reverses)) ?? (await find(ctx, doc.reverses)))
    : null;
  const ids = (record?.remoteIds ?? []).flatMap((r) => parseRemoteId(r) ?? []);
  if (ids.length > 1 && salesPayments.has(keyPrefix(baseKey(doc.reverses ?? ''))))
    return reverseParts(ctx, given, doc, ids, lock, context);
  const original = ids[0] ?? null;
  if (!original) {
    const made = await reversingDocuments(ctx, doc.key);
    if (made) return { ...made, contentHash: doc.contentHash, created: false };
    throw new TargetRefusedError(
      ctx.name,
      `nothing to reverse: ${doc.reverses ?? '(no key)'} is not in Xero`,
    );
  }
  const { entity, id } = original;
  const result = (created: boolean): PushResult => ({
    key: doc.key,
    remoteIds: [`deleted:${entity}:${id}`],
    contentHash: doc.contentHash,
    created,
  });
  const current = await read(ctx, entity, id);
  if (!current) throw new TargetRefusedError(ctx.name, `nothing to reverse: ${entity} ${id} is not in Xero`);
  if (deletedStatuses.has(String(current.status))) return result(false);
  // A customer's credit is refunded, never deleted, in its own month or after (overpayments.ts).
  if (isOverpayment(entity, current)) return refundOverpayment(ctx, doc, current, context, null, lock);
  // Money moved on since (a payment applied to the invoice, the payment reconciled): Xero refuses the
  // cancel, so the reversal is the documents made after a close, in the reversal's own month.
  if (!reversesInPlace(given, lock, dayOf(current.date)) || movedOn(entity, current))
    return reverseAfterClose(ctx, doc, entity, current, context);
  try {
    await cancel(ctx, doc, entity, id, current);
  } catch (error) {
    // Paid or reconciled after it was read: the original stands, the reversal is documents of its own.
    if (!isRefusedInPlace(error)) throw error;
    ctx.logger?.info({ key: doc.key, entity, id }, 'cancel refused: reversed by documents of its own');
    return reverseAfterClose(ctx, doc, entity, (await read(ctx, entity, id)) ?? current, context);
  }
  ctx.logger?.info({ key: doc.key, entity, id }, 'cancelled in xero');
  return result(true);
}

/**
 * Whether Xero would refuse to cancel the original because money moved on it: an invoice with a payment or
 * credit note applied (AmountPaid, AmountCredited above 0; Xero: "This document cannot be edited as it has
 * a payment or credit note allocated to it", the payments to be removed first, XeroAPI/xero-node#407), a
 * payment bank reconciliation matched (IsReconciled; Xero's Payments page, "Deleting payments": a
 * reconciled payment is not deleted). Read before the cancel, so nothing is sent that Xero refuses.
 */
export function movedOn(entity: XeroEntity, current: Body): boolean {
  if (entity === 'Invoice')
    return Number(current.amountPaid ?? 0) > 0 || Number(current.amountCredited ?? 0) > 0;
  if (entity === 'Payment') return current.isReconciled === true;
  return false;
}

/**
 * Money in parts reversed (an ACH return of a payment that paid the invoice and its memo): every part, as
 * one part alone would be. In the same open month each Payment DELETED (its invoice owed again) and the
 * credit refunded (overpayments.ts: an overpayment is never DELETED); across months or into a locked period
 * nothing is touched and, in the open period, an ACCREC invoice per part for what the customer owes again
 * (`part=<tag>` after the reversal's marker, the link noted for Xero's aged receivables) and one SPEND bank
 * transaction of the whole out of the account the money went into (one bank line, as the bank returns it),
 * both on Refunds, where they net to nothing. Found again by the reversal's key, each made once; a reversal
 * in place already begun (a part deleted) goes on in place.
 */
async function reverseParts(
  ctx: XeroContext,
  given: TargetDocument,
  doc: TargetDocument,
  ids: { entity: XeroEntity; id: string }[],
  lock: string | null,
  context: PushContext,
): Promise<PushResult> {
  const parts: { entity: XeroEntity; id: string; record: Body }[] = [];
  for (const { entity, id } of ids) {
    const record = await read(ctx, entity, id);
    if (!record) throw new TargetRefusedError(ctx.name, `nothing to reverse: ${entity} ${id} is not in Xero`);
    parts.push({ entity, id, record });
  }
  const live = parts.filter((p) => !deletedStatuses.has(String(p.record.status)));
  const begun = live.length < parts.length;
  if (live.length > 0 && !begun && !reversesInPlace(given, lock, dayOf(live[0]?.record.date)))
    return reversePartsAfterClose(ctx, doc, parts, context);
  const remoteIds: string[] = [];
  let created = false;
  for (const part of parts) {
    const gone = deletedStatuses.has(String(part.record.status));
    if (!gone && isOverpayment(part.entity, part.record)) {
      const tag = partIn(markerText(part.entity, part.record));
      const refund = await refundOverpayment(ctx, doc, part.record, context, tag, lock);
      remoteIds.push(...refund.remoteIds);
      created ||= refund.created;
      continue;
    }
    if (!gone) {
      await cancel(ctx, doc, part.entity, part.id, part.record);
      created = true;
    }
    remoteIds.push(`deleted:${part.entity}:${part.id}`);
  }
  if (created) ctx.logger?.info({ key: doc.key, parts: parts.length }, 'reversed every part in xero');
  return { key: doc.key, remoteIds, contentHash: doc.contentHash, created };
}

async function reversePartsAfterClose(
  ctx: XeroContext,
  doc: TargetDocument,
  parts: { entity: XeroEntity; id: string; record: Body }[],
  context: PushContext,
): Promise<PushResult> {
  const pair = pairOf(doc.lines);
  if (pair?.debit !== 'AccountsReceivable' || !(await ctx.accounts.isBank(pair.credit)))
    throw new TargetRefusedError(ctx.name, `${doc.key}: not money back out of a bank account`);
  const contact = { contactID: await ctx.contacts.id(doc.customer ?? unnamedCustomer) };
  const plans = partsReversingPlans(ctx, doc, parts, contact, pair.credit);
  const remoteIds: string[] = [];
  let created = false;
  const found = new Map<XeroEntity, Body[]>();
  for (const [i, { tag, plan }] of plans.entries()) {
    if (!found.has(plan.entity)) found.set(plan.entity, await marked(ctx, plan.entity, doc.key));
    const existing = found.get(plan.entity)?.find((r) => partIn(markerText(plan.entity, r)) === tag);
    if (existing) {
      const stored = markOf(plan.entity, existing, doc.key)?.contentHash ?? '';
      if (stored !== doc.contentHash)
        throw new TargetConflictError(ctx.name, doc.key, stored, doc.contentHash);
      remoteIds.push(`${plan.entity}:${idOf(plan.entity, existing)}`);
    } else {
      const body = (await taxed(ctx, plan)).body;
      const [outcome] = await create(ctx, plan.entity, [{ doc, body }], context);
      if (outcome instanceof Error) throw outcome;
      remoteIds.push(...(outcome as PushResult).remoteIds);
      created = true;
    }
    // The customer's credit whose money went back pays the invoice made for it (overpayments.ts).
    const part = parts[i];
    const invoice = parseRemoteId(remoteIds.at(-1));
    if (part && isOverpayment(part.entity, part.record) && invoice?.entity === 'Invoice')
      await allocateToOwedAgain(ctx, doc, part.record, invoice.id);
  }
  ctx.logger?.info({ key: doc.key, remoteIds }, 'reversed every part after close in xero');
  return { key: doc.key, remoteIds, contentHash: doc.contentHash, created };
}

/**
 * The documents that reverse money in parts after close: an ACCREC invoice per part for what the customer
 * owes again, and one SPEND of the whole out of `bank`, both on Refunds (reverseParts).
 */
function partsReversingPlans(
  ctx: XeroContext,
  doc: TargetDocument,
  parts: { entity: XeroEntity; id: string; record: Body }[],
  contact: Body,
  bank: AccountRole,
): { tag: string | null; plan: Plan }[] {
  const mark = marker(doc.key, doc.contentHash);
  const refunds = ctx.accounts.code('Refunds');
  const plans: { tag: string | null; plan: Plan }[] = parts.map(({ entity, id, record }) => {
    const tag = partIn(markerText(entity, record)) ?? `${entity}:${id}`;
    const cents = amountToCents(Number(entity === 'Payment' ? record.amount : record.total));
    return {
      tag,
      plan: {
        entity: 'Invoice',
        body: {
          type: 'ACCREC',
          contact,
          date: doc.date,
          dueDate: dueDateOf(doc),
          invoiceNumber: numberTag(`${doc.key} part=${tag}`),
          reference: partReference(mark, { tag }, doc.invoice ? ownerNote(doc.invoice) : ''),
          status: 'AUTHORISED',
          lineItems: oneLine(`${doc.description} (${tag})`, cents, refunds),
        },
      },
    };
  });
  plans.push({
    tag: null,
    plan: {
      entity: 'BankTransaction',
      body: {
        type: 'SPEND',
        contact,
        bankAccount: { code: ctx.accounts.code(bank) },
        date: doc.date,
        reference: mark,
        lineItems: oneLine(doc.description, doc.amountCents, refunds),
      },
    },
  });
  return plans;
}

/**
 * A reversal across months or into a locked period: new documents dated in the open period, each carrying
 * the reversal's marker; the ones already made (a crash between two) are found, not made again.
 */
async function reverseAfterClose(
  ctx: XeroContext,
  doc: TargetDocument,
  entity: XeroEntity,
  paid: Body,
  context: PushContext,
): Promise<PushResult> {
  const plans: Plan[] = [];
  for (const plan of await reversingPlans(ctx, doc, entity, paid)) plans.push(await taxed(ctx, plan));
  const remoteIds: string[] = [];
  let created = false;
  for (const plan of plans) {
    const existing = await lookupOne(ctx, plan.entity, doc);
    if (existing) {
      if (existing.contentHash !== doc.contentHash)
        throw new TargetConflictError(ctx.name, doc.key, existing.contentHash, doc.contentHash);
      remoteIds.push(...existing.remoteIds);
      continue;
    }
    const [outcome] = await create(ctx, plan.entity, [{ doc, body: plan.body }], context);
    if (outcome instanceof Error) throw outcome;
    remoteIds.push(...(outcome as PushResult).remoteIds);
    created = true;
  }
  ctx.logger?.info({ key: doc.key, remoteIds }, 'reversed after close in xero');
  return { key: doc.key, remoteIds, contentHash: doc.contentHash, created };
}

/**
 * Which documents reverse `entity` after close, dated in the open period (README, "Reversals after close"):
 * - a customer's payment (Dr receivable / Cr bank): Xero's dishonoured payment (help.xero.com
 *   Q_DishonouredPayment) without deleting the locked payment: a spend money transaction out of the bank
 *   account for the reversal, and the invoice the customer owes again, an ACCREC invoice of its own; both
 *   coded to one account (Refunds), where they net to nothing. Xero takes no bank account on an invoice line.
 * - a bill payment (Dr bank / Cr payable): the mirror, receive money into the bank account and an ACCPAY
 *   bill the business owes again, both on Bill Expenses;
 * - an invoice or anything on the receivable alone: a credit note (or a charge invoice) for the customer;
 * - money between accounts: the opposite bank transaction or transfer; anything else a manual journal.
 */
async function reversingPlans(
  ctx: XeroContext,
  doc: TargetDocument,
  entity: XeroEntity,
  paid: Body,
): Promise<Plan[]> {
  const pair = pairOf(doc.lines);
  const mark = marker(doc.key, doc.contentHash);
  const amount = centsToAmount(doc.amountCents);
  const line = (role: AccountRole) => ({
    description: doc.description,
    quantity: 1,
    unitAmount: amount,
    accountCode: ctx.accounts.code(role),
  });
  const contactOf = async (fallback: Party | undefined) =>
    paid.invoice?.contact?.contactID
      ? { contactID: String(paid.invoice.contact.contactID) }
      : { contactID: await ctx.contacts.id(fallback ?? unnamedCustomer) };
  const bankMove = (
    type: 'SPEND' | 'RECEIVE',
    bank: AccountRole,
    contact: Body,
    offset: AccountRole,
  ): Plan => ({
    entity: 'BankTransaction',
    body: {
      type,
      contact,
      bankAccount: { code: ctx.accounts.code(bank) },
      date: doc.date,
      reference: mark,
      lineItems: [line(offset)],
    },
  });
  const invoice = (type: 'ACCREC' | 'ACCPAY', contact: Body, offset: AccountRole): Plan => ({
    entity: 'Invoice',
    body: {
      type,
      contact,
      date: doc.date,
      dueDate: dueDateOf(doc),
      invoiceNumber: numberTag(doc.key),
      ...(type === 'ACCREC' ? { reference: withOwnerNote(mark, doc.invoice) } : {}),
      status: 'AUTHORISED',
      lineItems: [
        type === 'ACCREC'
          ? line(offset)
          : {
              ...line(offset),
              description: `${doc.description}; ${withOwnerNote(mark, doc.bill)}`,
            },
      ],
    },
  });
  if (
    entity === 'Payment' &&
    pair?.debit === 'AccountsReceivable' &&
    (await ctx.accounts.isBank(pair.credit))
  ) {
    const contact = await contactOf(doc.customer);
    return [invoice('ACCREC', contact, 'Refunds'), bankMove('SPEND', pair.credit, contact, 'Refunds')];
  }
  if (entity === 'Payment' && pair?.credit === 'AccountsPayable' && (await ctx.accounts.isBank(pair.debit))) {
    const contact = await contactOf(doc.vendor);
    return [
      invoice('ACCPAY', contact, 'BillExpenses'),
      bankMove('RECEIVE', pair.debit, contact, 'BillExpenses'),
    ];
  }
  if (pair?.debit === 'AccountsReceivable')
    return [invoice('ACCREC', await contactOf(doc.customer), pair.credit)];
  if (pair?.credit === 'AccountsReceivable') {
    return [
      {
        entity: 'CreditNote',
        body: {
          type: 'ACCRECCREDIT',
          contact: await contactOf(doc.customer),
          date: doc.date,
          // A reversal's key does not name its link: noted, so the credit counts to the link in Xero's aging.
          reference: withOwnerNote(mark, doc.invoice),
          status: 'AUTHORISED',
          lineItems: [line(pair.debit)],
        },
      },
    ];
  }
  return [await moneyMove(ctx, doc)];
}
