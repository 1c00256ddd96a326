import { openDate } from '../closed-periods.js';
import { amountToCents, centsToAmount } from '../decimal-amounts.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { Ref } from './accounts.js';
import type { LinkedReceipt } from './documents.js';
import { isClosedPeriod } from './faults.js';
import { isVoided, parseRemoteId, withFreshSyncToken } from './helpers.js';
import type { QboEntity } from './http-client.js';
import { findIn } from './look-ups.js';
import { journalLinks } from './payout-links.js';
import type { QuickBooksSession } from './session.js';

// A surcharge, fee or refund of a payment a payout carries, pushed after the payout's Deposit (its entry
// booked after the payout's, or pushed later): the Deposit could not link it when it was made, so its money
// is in the Deposit's own line on the clearing account and the transaction stays in QuickBooks' list of funds
// to deposit. The Deposit is updated to link it as payoutLinks() would have, that line less the same amount:
// the Deposit's total stays the payout's. Intuit's Deposit reference ("Full update a deposit"; a sparse
// update replaces the whole Line array, sent with the SyncToken read).

type DepositLine = {
  Amount?: number;
  LinkedTxn?: { TxnId?: string; TxnType?: string; TxnLineId?: string }[];
  DepositLineDetail?: { AccountRef?: { value?: string } };
};

/** The text of the Deposit's own line on the clearing account, as documents.ts payoutDeposit() writes it. */
const NETTED_LINE = 'Netted in this payout, not held in QuickBooks';

/**
 * `doc` pushed (`result`: made or found) and netted by a payout whose Deposit QBO holds (TargetDocument
 * .nettedBy): the Deposit links it, once. Idempotent by QBO's state: a Deposit that links it already is
 * left, so a retry changes nothing. Left too, and logged: a Deposit dated on or before `lock` (a closed
 * period never changes: the transaction stays to deposit), a voided one, one with no line of its own on the
 * clearing account (the payout's money holds none of it). No Deposit yet: it links this when made.
 */
export async function linkedToPayout(
  s: QuickBooksSession,
  doc: TargetDocument,
  result: PushResult,
  context: PushContext,
  lock: string | null,
): Promise<PushResult> {
  const own = parseRemoteId(result.remoteIds[0]);
  if (!doc.nettedBy || !own) return result;
  const depositId = await payoutDeposit(s, doc, context, lock);
  if (!depositId) return result;
  const clearing = await s.accounts.ref('ProcessorClearing');
  const links = await linksOf(s, own, doc, clearing);
  const read = await s.client.read('Deposit', depositId);
  const missing = links.filter((l) => !linkedIn(read, l));
  if (missing.length === 0 || isVoided(read)) return result;
  const log = { key: doc.key, payout: doc.nettedBy.key, deposit: depositId };
  const date = String(read.TxnDate ?? '').slice(0, 10);
  if (lock !== null && date <= lock) {
    s.options.logger?.warn(
      { ...log, depositDate: date, lockedThrough: lock },
      "the payout's Deposit is in a closed period: not changed, the transaction stays in Undeposited Funds",
    );
    return result;
  }
  if (!ownLine(read, clearing)) {
    s.options.logger?.warn(
      log,
      "the payout's Deposit has no line of its own on the clearing account: the transaction stays in Undeposited Funds",
    );
    return result;
  }
  try {
    await withFreshSyncToken(
      s,
      'Deposit',
      depositId,
      (current) => ({ sparse: true, Line: relinked(current, links, clearing) }),
      { operation: 'update' },
      `${doc.key} deposit-link`,
      read,
    );
  } catch (error) {
    if (!isClosedPeriod(error)) throw error;
    s.options.logger?.warn(
      log,
      "the payout's Deposit is in a closed period: not changed, the transaction stays in Undeposited Funds",
    );
    return result;
  }
  s.options.logger?.info(log, "linked to its payout's Deposit in quickbooks");
  return result;
}

/**
 * The payout's Deposit: the push's index, what this adapter made or found, else QBO by its date (the
 * payout's own, then the day after the lock it was dated to when its own is closed). Null when none.
 */
async function payoutDeposit(
  s: QuickBooksSession,
  doc: TargetDocument,
  context: PushContext,
  lock: string | null,
): Promise<string | null> {
  const payout = doc.nettedBy as { key: string; date: string };
  let record = context.pushed(payout.key) ?? s.known.get(payout.key) ?? null;
  for (const date of new Set([payout.date, openDate(payout.date, lock)])) {
    if (record) break;
    const hint: TargetDocument = { ...doc, key: payout.key, date, kind: 'disbursement-pending' };
    record = await findIn(s, 'Deposit', payout.key, hint);
  }
  const found = parseRemoteId(record?.remoteIds[0]);
  return found?.entity === 'Deposit' ? found.id : null;
}

/** What `own` put in the clearing account, as payoutLinks() links it: a refund's out, a fee journal's line. */
async function linksOf(
  s: QuickBooksSession,
  own: { entity: string; id: string },
  doc: TargetDocument,
  clearing: Ref,
): Promise<LinkedReceipt[]> {
  const whole = (txnType: 'SalesReceipt' | 'RefundReceipt', sign: 1 | -1): LinkedReceipt[] => [
    { txnId: own.id, txnType, txnLineId: '0', amountCents: sign * doc.amountCents },
  ];
  if (own.entity === 'SalesReceipt') return whole('SalesReceipt', 1);
  if (own.entity === 'RefundReceipt') return whole('RefundReceipt', -1);
  if (own.entity === 'JournalEntry') return journalLinks(s, own.id, clearing);
  return [];
}

function linesOf(deposit: QboEntity): DepositLine[] {
  return (deposit.Line as DepositLine[] | undefined) ?? [];
}

function linkedIn(deposit: QboEntity, link: LinkedReceipt): boolean {
  return linesOf(deposit).some((line) =>
    (line.LinkedTxn ?? []).some(
      (t) =>
        t.TxnId === link.txnId && t.TxnType === link.txnType && String(t.TxnLineId ?? '0') === link.txnLineId,
    ),
  );
}

/** The Deposit's own line on the clearing account: the money it took that no transaction of QBO holds. */
function ownLine(deposit: QboEntity, clearing: Ref): DepositLine | undefined {
  return linesOf(deposit).find(
    (l) => (l.LinkedTxn ?? []).length === 0 && l.DepositLineDetail?.AccountRef?.value === clearing.value,
  );
}

/**
 * The Deposit's lines with the links it lacks added after its linked lines, and its own line on the clearing
 * account less their sum (gone when nothing is left), so the total does not move.
 */
function relinked(deposit: QboEntity, links: LinkedReceipt[], clearing: Ref): DepositLine[] {
  const missing = links.filter((l) => !linkedIn(deposit, l));
  const manual = ownLine(deposit, clearing);
  const lines = linesOf(deposit).filter((l) => l !== manual);
  const rest =
    amountToCents(Number(manual?.Amount ?? 0)) - missing.reduce((sum, l) => sum + l.amountCents, 0);
  const linked = lines.filter((l) => (l.LinkedTxn ?? []).length > 0);
  const others = lines.filter((l) => (l.LinkedTxn ?? []).length === 0);
  const added = missing.map((l) => ({
    Amount: centsToAmount(l.amountCents),
    LinkedTxn: [{ TxnId: l.txnId, TxnType: l.txnType, TxnLineId: l.txnLineId }],
  }));
  const own = manual ?? {
    Description: NETTED_LINE,
    DetailType: 'DepositLineDetail',
    DepositLineDetail: { AccountRef: clearing },
  };
  const kept = rest === 0 ? [] : [{ ...own, Amount: centsToAmount(rest) }];
  return [...linked, ...added, ...others, ...kept];
}
