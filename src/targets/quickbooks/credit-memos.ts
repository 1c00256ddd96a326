import { amountToCents } from '../decimal-amounts.js';
import type { DocumentApplication, PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { Ref } from './accounts.js';
import { isCheckCreditApplied, isVoided, parseRemoteId } from './helpers.js';
import { requestIdFor } from './keys.js';
import { earlier } from './look-ups.js';
import type { QuickBooksSession } from './session.js';
import { transferred } from './unapplied-cash.js';

// A lowered invoice's credit memo applied to the link's invoices, as QuickBooks applies a credit.

/**
 * What a document pushed still needs at QBO: a lowered invoice's credit memo applied to the link's invoice,
 * as QuickBooks applies a credit (a Payment of TotalAmt 0 whose lines link the Invoice and the CreditMemo:
 * Intuit's Payment reference, Line.LinkedTxn), for as much as the memo has left and the invoice still
 * owes, so the invoice's Balance is the service's remainder. What a paid invoice no longer owes stays the
 * customer's credit (the memo's Balance). Idempotent by QBO's own state: a memo found again (a re-push, a
 * crash after its create) applies only what it has left, nothing once applied. The application's Payment
 * is the result's second remote id when this push made it.
 */
export async function applied(
  s: QuickBooksSession,
  doc: TargetDocument,
  result: PushResult,
  context: PushContext,
): Promise<PushResult> {
  if (isCheckCreditApplied(doc)) return transferred(s, doc, result, context);
  const made = parseRemoteId(result.remoteIds[0]);
  if (doc.reapplies && made?.entity === 'Invoice') return reapplied(s, doc, result, context, made.id);
  if (doc.kind !== 'invoice-adjustment' || !doc.invoice) return result;
  const memoRef = made;
  if (memoRef?.entity !== 'CreditMemo') return result;
  const memo = await s.client.read('CreditMemo', memoRef.id);
  const left = amountToCents(Number(memo.Balance ?? 0));
  if (left <= 0 || isVoided(memo)) return result;
  // The link's invoices the credit goes to, as the ledger applied it (its own first, then a raise's or a
  // memo's charge invoice); a lowering booked before that split, on the link's own invoice for all of it.
  const own = `invoice:${doc.invoice.paymentLinkId}`;
  const parts = doc.settles?.applied ?? [{ key: own, amountCents: left }];
  const { applied, state } = await invoicesOwing(s, parts, left, context, (key) =>
    key === own ? doc : undefined,
  );
  if (applied.length === 0) return result;
  const plan = s.mapper.creditApplication(doc, applied, memoRef.id, memo.CustomerRef as Ref);
  // Of the state read: a replay after a lost answer is the same write, a later application (what the memo
  // and the invoices hold has moved since) another, whether or not QBO moved the memo's SyncToken.
  const payment = await s.client.write(plan.entity, plan.body, {
    requestid: requestIdFor(
      `${doc.key}:apply@${memo.SyncToken}:${amountToCents(Number(memo.Balance ?? 0))}:${state.join(',')}`,
      'create',
    ),
  });
  s.options.logger?.info(
    { key: doc.key, creditMemo: memoRef.id, invoices: applied, payment: payment.Id },
    "credit memo applied to the link's invoices in quickbooks",
  );
  return { ...result, remoteIds: [result.remoteIds[0] as string, `Payment:${payment.Id}`] };
}

/**
 * The credit a lowering left the customer (its memo's Balance, applied to nothing while the link was paid)
 * applied to the invoices the ledger says take it (TargetDocument.reapplies): after a reversal of money on
 * the link (a payment voided, refunded, returned), the invoices it reopened; for a charge on the link (a
 * raise, a memo, a reopened amount), its own charge Invoice (`charge`, its QBO id), as a bookkeeper applies
 * the customer's credit to a new charge. So each invoice's Balance is the service's remainder. The
 * application carries no booksync marker: it is no entry's document, only the memo's use, and it is
 * idempotent by QBO's own state (a memo with nothing left, an invoice owing nothing, applies nothing).
 */
export async function reapplied(
  s: QuickBooksSession,
  doc: TargetDocument,
  result: PushResult,
  context: PushContext,
  charge?: string,
): Promise<PushResult> {
  const own = (key: string) => (charge && key === doc.key ? { entity: 'Invoice', id: charge } : undefined);
  for (const { credit, applied: parts } of doc.reapplies ?? []) {
    const memoRef = await earlier(s, credit, context);
    if (memoRef?.entity !== 'CreditMemo') continue;
    const memo = await s.client.read('CreditMemo', memoRef.id);
    const left = amountToCents(Number(memo.Balance ?? 0));
    if (left <= 0 || isVoided(memo)) continue;
    const { applied, state } = await invoicesOwing(s, parts, left, context, () => undefined, own);
    if (applied.length === 0) continue;
    const plan = s.mapper.creditApplication(doc, applied, memoRef.id, memo.CustomerRef as Ref);
    const names = applied.map((a) => a.invoiceId).join(', ');
    const body = {
      ...plan.body,
      PrivateNote: charge
        ? `applies credit memo ${memoRef.id} to invoice ${names}, charged by ${doc.key}`
        : `applies credit memo ${memoRef.id} to invoice ${names} again, reopened by ${doc.key}`,
    };
    const payment = await s.client.write(plan.entity, body, {
      requestid: requestIdFor(
        `${doc.key}:reapply:${credit}@${memo.SyncToken}:${amountToCents(Number(memo.Balance ?? 0))}:${state.join(',')}`,
        'create',
      ),
    });
    s.options.logger?.info(
      { key: doc.key, creditMemo: memoRef.id, invoices: applied, payment: payment.Id },
      charge
        ? "credit memo applied to the link's charge invoice in quickbooks"
        : 'credit memo applied again to the reopened invoices in quickbooks',
    );
  }
  return result;
}

/**
 * The link's invoices a credit of `credit` cents goes to, in the ledger's order (`parts`), each for as much as the
 * part says, the credit has left and the invoice still owes (read from QBO); `state` names what was read, for
 * the application's requestid. `known`: an invoice this push holds already (none looked up).
 */
async function invoicesOwing(
  s: QuickBooksSession,
  parts: readonly DocumentApplication[],
  credit: number,
  context: PushContext,
  hint: (key: string) => TargetDocument | undefined = () => undefined,
  known: (key: string) => { entity: string; id: string } | undefined = () => undefined,
): Promise<{ applied: { invoiceId: string; cents: number }[]; state: string[] }> {
  const applied: { invoiceId: string; cents: number }[] = [];
  const state: string[] = [];
  let left = credit;
  for (const part of parts) {
    const ref = known(part.key) ?? (await earlier(s, part.key, context, hint(part.key)));
    if (ref?.entity !== 'Invoice') continue;
    const invoice = await s.client.read('Invoice', ref.id);
    const owed = amountToCents(Number(invoice.Balance ?? 0));
    const cents = Math.min(left, owed, part.amountCents);
    if (cents <= 0 || isVoided(invoice)) continue;
    applied.push({ invoiceId: ref.id, cents });
    state.push(`${ref.id}:${owed}`);
    left -= cents;
  }
  return { applied, state };
}
