import { refusalOrThrow } from '../push-waves.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import { isTransferOf, type Pair, type Plan, pairOf, TRANSFER_PART, transferTag } from './documents.js';
import { isCheckCreditApplied, parseRemoteId } from './helpers.js';
import { createRequestId } from './keys.js';
import type { QuickBooksSession } from './session.js';

// A deposited check's credit applied: its Payment's companion journal Dr Unapplied Cash / Cr Checks To Deposit.

/**
 * A deposited check's credit applied to an invoice: its Payment (from Checks To Deposit) is made or found;
 * what it still needs is the journal Dr Unapplied Cash / Cr Checks To Deposit for the Payment's amount, so
 * the check's money stays in Checks To Deposit until it clears and the credit leaves Unapplied Cash. Looked
 * up by its own number (transferTag) when the Payment was found or an attempt may have made it, so a
 * re-push makes none twice. The journal is the result's second remote id.
 */
export async function transferred(
  s: QuickBooksSession,
  doc: TargetDocument,
  result: PushResult,
  context: PushContext,
): Promise<PushResult> {
  const payment = parseRemoteId(result.remoteIds[0]);
  if (payment?.entity !== 'Payment') return result;
  const pair = pairOf(doc.lines) as Pair;
  const journal = await transferJournal(s, doc, !result.created || context.mayExist(doc.key), context, () =>
    s.mapper.unappliedCashTransfer(
      doc,
      'UnappliedCash',
      'ChecksToDeposit',
      pair.cents,
      `moves the check's credit out of Unapplied Cash, applied by Payment ${payment.id}`,
    ),
  );
  const remoteIds = [result.remoteIds[0] as string, `JournalEntry:${journal}`];
  s.known.set(doc.key, { key: doc.key, remoteIds, contentHash: result.contentHash });
  return { ...result, remoteIds };
}

/**
 * An applied check's credit settled in a backlog (found or created): its Unapplied Cash journal is made at
 * once, before any reversal in the same backlog runs. A returned check's void looks that journal up to
 * reverse it; a journal made after the void (as when every follow-up waited for the end of the backlog)
 * stayed unreversed, the check's 600.00 left in Unapplied Cash and out of Checks To Deposit. A refusal
 * settles the document with it.
 */
export function withTransfer(
  s: QuickBooksSession,
  doc: TargetDocument,
  outcome: PushResult | Error,
  context: PushContext,
): Promise<PushResult | Error> {
  if (outcome instanceof Error || !isCheckCreditApplied(doc)) return Promise.resolve(outcome);
  return refusalOrThrow(() => transferred(s, doc, outcome, context));
}

/** The Unapplied Cash journal of `doc`'s key: found by its number when it may exist, else created. */
export async function transferJournal(
  s: QuickBooksSession,
  doc: TargetDocument,
  lookUp: boolean,
  context: PushContext,
  plan: () => Promise<Plan>,
): Promise<string> {
  if (lookUp) {
    const found = await transferOf(s, doc.key);
    if (found) return found;
  }
  const { entity, body } = await plan();
  const created = await s.client.write(entity, body, {
    requestid: createRequestId(`${doc.key} ${TRANSFER_PART}`, body, context.refusals(doc.key)),
  });
  s.options.logger?.info(
    { key: doc.key, entity, id: created.Id },
    'unapplied cash journal pushed to quickbooks',
  );
  return created.Id;
}

/** The Id of the Unapplied Cash journal carrying `key`'s marker, null when QBO has none. */
export async function transferOf(s: QuickBooksSession, key: string): Promise<string | null> {
  const rows = await s.client.select('JournalEntry', { DocNumber: transferTag(key) });
  return rows.find((r) => isTransferOf(r.PrivateNote, key))?.Id ?? null;
}
