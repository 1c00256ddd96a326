import { baseKey, keyPrefix } from '../../ledger/entry-key.js';
import { alreadyPushed } from '../already-pushed.js';
import { reversesInPlace } from '../closed-periods.js';
import { amountToCents } from '../decimal-amounts.js';
import { TargetRefusedError } from '../errors.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { Ref } from './accounts.js';
import { type Plan, pairOf } from './documents.js';
import { isRefusedInPlace } from './faults.js';
import {
  isVoided,
  parseRemoteId,
  reversingEntity,
  voidable,
  voidQuery,
  withFreshSyncToken,
} from './helpers.js';
import type { QboEntity } from './http-client.js';
import { createRequestId, docNumberTag, marker, markersIn } from './keys.js';
import { earlier, findIn, locate } from './look-ups.js';
import { open, type QuickBooksSession } from './session.js';
import { transferJournal, transferOf } from './unapplied-cash.js';

// Reversals: a void in the same open month, else a document of its own dated in the open period.

/**
 * A reversal in the same open month as its original: the reversal's marker is added to the original's note,
 * then the original (an invoice, payment or bill payment) is voided as Intuit documents it (a voided
 * payment's invoice or bill is open again). Across months or into a closed period, or when QBO refuses the
 * void because money moved on the original (a deposited payment or sales receipt, a paid invoice), the
 * original is never touched: a payment's reversal is a charge invoice (a bill payment's a bill) dated in the
 * open period, anything else a reversing journal entry. The original comes from the push's index, else QBO; a marker
 * already added (a crash before the void) is not added again, and a reversal made either way is found by
 * its key.
 */
export async function reverse(
  s: QuickBooksSession,
  given: TargetDocument,
  context: PushContext,
  lock: string | null,
): Promise<PushResult> {
  const result = await reverseOriginal(s, given, context, lock);
  return reversedTransfer(s, open(s, given, lock), result, context);
}

/**
 * An applied check's credit reversed (the check returned) by voiding its Payment: its Unapplied Cash
 * journal, if it has one, is reversed too (Dr Checks To Deposit / Cr Unapplied Cash, in the open period,
 * never edited), so the credit is back in Unapplied Cash as in the ledger. Reversed by a charge invoice
 * (after its month, into closed books) nothing more is needed: that invoice credits Unapplied Cash through
 * booksync's item of it, so the Payment, the journal and the invoice net to nothing. Found by its number
 * when it may exist: a crash between the void and the journal makes it on the next push, once.
 */
export async function reversedTransfer(
  s: QuickBooksSession,
  doc: TargetDocument,
  result: PushResult,
  context: PushContext,
): Promise<PushResult> {
  const original = doc.reverses ?? '';
  if (keyPrefix(baseKey(original)) !== 'check-application') return result;
  // The void made now, or found made by an attempt cut short (a 429, a crash) before its journal.
  const voided = result.remoteIds[0] ?? '';
  if (!/^(void:)?Payment:/.test(voided) || result.remoteIds.length > 1) return result;
  // The index may hold the Payment alone (an application found again by its key after a crash names only
  // its Payment): the journal is then looked up by its number, never taken as absent.
  const pushed = context.pushed(original)?.remoteIds;
  const transfer = (pushed ? parseRemoteId(pushed[1])?.id : undefined) ?? (await transferOf(s, original));
  if (!transfer) return result;
  const journal = await s.client.read('JournalEntry', transfer);
  const line = (journal.Line as { Amount?: unknown }[] | undefined)?.[0];
  const cents = amountToCents(Number(line?.Amount ?? 0));
  const id = await transferJournal(s, doc, !result.created || context.mayExist(doc.key), context, () =>
    s.mapper.unappliedCashTransfer(
      doc,
      'ChecksToDeposit',
      'UnappliedCash',
      cents,
      `reverses journal ${transfer}: the check's credit back in Unapplied Cash`,
    ),
  );
  const remoteIds = [voided, `JournalEntry:${id}`];
  s.known.set(doc.key, { key: doc.key, remoteIds, contentHash: result.contentHash });
  return { ...result, remoteIds };
}

export async function reverseOriginal(
  s: QuickBooksSession,
  given: TargetDocument,
  context: PushContext,
  lock: string | null,
): Promise<PushResult> {
  const doc = open(s, given, lock);
  const original = doc.reverses ? await earlier(s, doc.reverses, context, doc) : null;
  if (!original) {
    const existing = await locate(s, doc.key);
    if (existing) return alreadyPushed(s.name, existing, doc);
    throw new TargetRefusedError(
      s.name,
      `nothing to reverse: ${doc.reverses ?? '(no key)'} is not in QuickBooks`,
    );
  }
  if (original.entity === 'CreditMemo') {
    // Never voided nor deleted (it may be applied, in a closed month): the customer owes it again by a
    // charge invoice of its own, dated in the open period.
    return reverseAfterClose(s, doc, 'Invoice', await s.client.read('CreditMemo', original.id), context);
  }
  if (voidable.has(original.entity)) {
    const remoteIds = [`void:${original.entity}:${original.id}`];
    const current = await s.client.read(original.entity, original.id);
    const mark = markersIn(current.PrivateNote).find((m) => m.key === doc.key);
    // Marked and voided: done. Marked only (a crash, or a refusal, between the marker and the void): the
    // void is still to make, or the reversal is a document of its own.
    if (mark && isVoided(current))
      return alreadyPushed(s.name, { key: doc.key, remoteIds, contentHash: mark.contentHash }, doc);
    // Money moved on since (deposited by a payout, or paid): QBO refuses the void, so the reversal is the
    // document made after a close, in the reversal's own month, and the original is not written to.
    if (reversesInPlace(given, lock, String(current.TxnDate ?? '')) && !movedOn(original.entity, current)) {
      try {
        return await voidInPlace(s, doc, original, current, remoteIds);
      } catch (error) {
        // Deposited or paid after it was read (QBO 6540 "Deposited Transaction cannot be changed", or an
        // invoice's "payments applied"): the deposit or payment stands, the reversal is a document of its own.
        if (!isRefusedInPlace(error)) throw error;
        s.options.logger?.info(
          { key: doc.key, entity: original.entity, id: original.id },
          'void refused: reversed by a document of its own',
        );
      }
    }
    const reversing = reversingEntity[original.entity];
    if (reversing) return reverseAfterClose(s, doc, reversing, current, context);
  }
  const existing = context.mayExist(doc.key) ? await findIn(s, 'JournalEntry', doc.key) : null;
  if (existing) return alreadyPushed(s.name, existing, doc);
  const plan = await s.mapper.journal(doc, `reverses ${doc.reverses} (${original.entity} ${original.id})`);
  return createReversal(s, doc, plan, context);
}

/**
 * Whether QBO would refuse the original's void because money moved on it: a payment or sales receipt a
 * Deposit links (Finance.xsd Transaction.LinkedTxn, TxnType Deposit; Intuit's Payment reference: "If funds
 * for the payment have been deposited, you must delete the associated deposit object before voiding"), an
 * invoice a payment is applied to (its Balance below its TotalAmt). Read before the void, so the original
 * is not even marked; a refusal of the void (isRefusedInPlace) still ends the same way.
 */
export function movedOn(entity: string, current: QboEntity): boolean {
  if (entity === 'Invoice')
    return amountToCents(Number(current.Balance ?? 0)) < amountToCents(Number(current.TotalAmt ?? 0));
  const linked = (current.LinkedTxn as { TxnType?: unknown }[] | undefined) ?? [];
  return (entity === 'Payment' || entity === 'SalesReceipt') && linked.some((t) => t.TxnType === 'Deposit');
}

/**
 * The reversal's marker on the original's note, then QBO's void. QBO keeps the note a void finds ("Voided" is
 * prepended to it: Intuit's "Void a payment", "Void an invoice") and documents no change of a voided
 * transaction, so nothing is written to the original after its void. Voided already without the marker
 * (voided in QuickBooks by someone else): that void is the reversal, found, not made.
 */
export async function voidInPlace(
  s: QuickBooksSession,
  doc: TargetDocument,
  original: { entity: string; id: string },
  current: QboEntity,
  remoteIds: string[],
): Promise<PushResult> {
  const voidedBefore = isVoided(current);
  if (!voidedBefore) {
    const marked = markersIn(current.PrivateNote).some((m) => m.key === doc.key);
    const noted = marked
      ? current
      : await withFreshSyncToken(
          s,
          original.entity,
          original.id,
          (record) => ({
            sparse: true,
            PrivateNote:
              `${typeof record.PrivateNote === 'string' ? record.PrivateNote : ''}\n${marker(doc.key, doc.contentHash)}`.trim(),
          }),
          { operation: 'update' },
          `${doc.key}:marker`,
          current,
        );
    await withFreshSyncToken(
      s,
      original.entity,
      original.id,
      () => (original.entity === 'Invoice' ? {} : { sparse: true }),
      voidQuery[original.entity] ?? { operation: 'void' },
      doc.key,
      noted,
    );
  }
  const result = { key: doc.key, remoteIds, contentHash: doc.contentHash, created: !voidedBefore };
  s.known.set(doc.key, result);
  return result;
}

/**
 * A payment reversed after its month (or into a closed period): a charge invoice for the payment's customer,
 * dated in the open period, its line through booksync's item of the account the payment went into
 * (Undeposited Funds, Checks To Deposit...): Intuit's bounced-check invoice. A bill payment's: a bill for its
 * vendor on the account it was paid from. Numbered with the reversal key's tag, found by it.
 */
export async function reverseAfterClose(
  s: QuickBooksSession,
  doc: TargetDocument,
  entity: string,
  paid: QboEntity,
  context: PushContext,
): Promise<PushResult> {
  const mayExist = context.mayExist(doc.key);
  const existing = mayExist ? await findIn(s, entity, doc.key, doc) : null;
  if (existing) return alreadyPushed(s.name, existing, doc);
  const pair = pairOf(doc.lines);
  const plan =
    entity === 'Invoice' && pair?.debit === 'AccountsReceivable'
      ? await s.mapper.invoice(doc, docNumberTag(doc.key), paid.CustomerRef as Ref)
      : entity === 'Bill' && pair?.credit === 'AccountsPayable'
        ? await s.mapper.bill(doc, pair, doc.vendor ?? null, paid.VendorRef as Ref, docNumberTag(doc.key))
        : null;
  if (plan) return createReversal(s, doc, plan, context);
  const journal = mayExist ? await findIn(s, 'JournalEntry', doc.key) : null;
  if (journal) return alreadyPushed(s.name, journal, doc);
  return createReversal(
    s,
    doc,
    await s.mapper.journal(doc, `reverses ${doc.reverses} (${paid.Id})`),
    context,
  );
}

export async function createReversal(
  s: QuickBooksSession,
  doc: TargetDocument,
  plan: Plan,
  context: PushContext,
): Promise<PushResult> {
  const created = await s.client.write(plan.entity, plan.body, {
    requestid: createRequestId(doc.key, plan.body, context.refusals(doc.key)),
  });
  const result = {
    key: doc.key,
    remoteIds: [`${plan.entity}:${created.Id}`],
    contentHash: doc.contentHash,
    created: true,
  };
  s.known.set(doc.key, result);
  s.options.logger?.info(
    { key: doc.key, entity: plan.entity, id: created.Id },
    'reversal pushed to quickbooks',
  );
  return result;
}
