import { datedOpen, laterOf, reversesInPlace } from '../closed-periods.js';
import { TargetRefusedError } from '../errors.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import {
  closedPeriodRefusal,
  described,
  heldAsInvoice,
  type LineRow,
  marker,
  moveOwnerNote,
  writesOffInvoice,
} from './helpers.js';
import { creditInvoice } from './invoices.js';
import { dateOf, isoDateOf, TrytonWarningError } from './json-rpc.js';
import { invoiceOwedAgain, type KeptLine } from './owed-again.js';
import { periodOf, post, redate } from './posting.js';
import { invoicesProcessed, reconcileInvoicesPaidBy, reconcileLines, unreconcile } from './reconciliation.js';
import { findByKey, moveRecord } from './records.js';
import {
  negatedValues,
  type PaidLine,
  paidLineFields,
  paidNote,
  partsPerInvoice,
  spreadLines,
} from './reversal-parts.js';
import type { TrytonSession } from './session.js';

// Reversals of moves: Tryton's own Cancel Moves in place while the original's month is open, else a reversing
// move dated in the open period, each reconcilable line reconciled with the line it reverses. An invoice's
// reversal is a credit note (invoices.ts creditInvoice).

/**
 * A reversal: Cancel Moves in place when the original and the reversal fall in the same month after the
 * lock, else a reversing move dated in the open period (closed-periods.ts). Found by key first.
 */
export async function reverse(
  s: TrytonSession,
  given: TargetDocument,
  lock: string | null,
  context: PushContext,
): Promise<PushResult> {
  // A lowering written off as bad debt is a move (writesOffInvoice): reversed as moves are.
  if (heldAsInvoice(given.key) && !writesOffInvoice(given)) return creditInvoice(s, given, lock, context);
  const existing = await moveRecord(s, given.key);
  if (existing) {
    // Created, then refused at posting or cut short: post it now (dated after a lock read since). A reversal
    // in parts is created and posted whole, so its parts are all drafts or none.
    const ids = existing.remoteIds.map((r) => Number(r.split(',')[1]));
    if (existing.draft) {
      for (const id of ids) {
        const draft = { model: 'account.move', id };
        await redate(s, draft, datedOpen(given, lock));
        await post(s, given, draft);
      }
    }
    // Cut short between the post and the reconciliation: done now (nothing when done already).
    for (const id of ids) await settleReversal(s, id, lock);
    return {
      key: given.key,
      remoteIds: existing.remoteIds,
      contentHash: given.contentHash,
      created: existing.draft !== null,
    };
  }
  const original = given.reverses ? await findByKey(s, given.reverses) : null;
  const moveRef = original?.remoteIds.find((r) => r.startsWith('account.move,'));
  if (!original || !moveRef) {
    throw new TargetRefusedError(s.name, `${given.key}: ${given.reverses} is not in Tryton to reverse`);
  }
  const moveId = Number(moveRef.split(',')[1]);
  const [held] = await s.rpc.model<{ date: unknown }[]>('account.move', 'read', [moveId], ['date']);
  const heldOn = isoDateOf(held?.date);
  if (reversesInPlace(given, lock, heldOn)) {
    try {
      return await cancelInPlace(s, given, moveId);
    } catch (error) {
      // Tryton asks to confirm the cancel of a move whose period is closed (and would date the cancel
      // move today): booksync never confirms it. Its period closed since the lock was read: read again.
      if (!(error instanceof TrytonWarningError) || !closedPeriodRefusal.test(error.targetMessage))
        throw error;
      s.locks.forget();
      lock = laterOf(await s.locks.get(), context.closedThrough);
      if (reversesInPlace(given, lock, heldOn)) {
        throw new TargetRefusedError(
          s.name,
          `${given.key}: Tryton asks to confirm cancelling move ${moveId} of a closed period, which booksync never confirms (${error.targetMessage})`,
        );
      }
    }
  }
  return reverseAfterClose(s, datedOpen(given, lock), moveId, lock);
}

/** Tryton's own Cancel Moves (with reversal) on the original, after unreconciling its lines. */
async function cancelInPlace(
  s: TrytonSession,
  document: TargetDocument,
  moveId: number,
): Promise<PushResult> {
  const lines = await s.rpc.searchRead<LineRow & { invoice_payment: number | null }>(
    'account.move.line',
    [['move', '=', moveId]],
    ['reconciliation', 'invoice_payment'],
  );
  await unreconcile(s, lines);
  await s.rpc.wizard(
    'account.move.cancel',
    'cancel',
    {
      default: {
        description: `${marker(document.key)}${document.contentHash}${moveOwnerNote(document)}`,
        reversal: true,
      },
    },
    'account.move',
    [moveId],
  );
  const reversal = await findByKey(s, document.key);
  if (!reversal) throw new TargetRefusedError(s.name, `${document.key}: Tryton's cancel wizard made no move`);
  await reconcileInvoicesPaidBy(s, moveId);
  // Cancelled, the move's lines no longer pay their invoices: taken off the invoices' payment lines, as a
  // reversal after a close takes them (settleReversal). Tryton's Cancel Moves leaves them there, and an
  // invoice counts every payment line against its amount (`check_payment_lines`), so it would refuse the
  // next payment or credit note applied to it as more than the invoice.
  const paying = lines.filter((l) => l.invoice_payment !== null);
  if (paying.length > 0)
    await invoicesProcessed(
      s,
      paying.map((l) => l.id),
    );
  for (const invoice of new Set(paying.map((l) => l.invoice_payment as number))) {
    const taken = paying.filter((l) => l.invoice_payment === invoice).map((l) => l.id);
    await s.rpc.model('account.invoice', 'write', [invoice], { payment_lines: [['remove', taken]] });
  }
  return { ...reversal, contentHash: document.contentHash, created: true };
}

/**
 * The reversal of a move of an earlier month or of a closed period: a new move dated in the open period
 * with the original's lines negated (debit and credit swapped, same accounts and parties), its origin the
 * original and each line's the line it reverses, as Tryton's Cancel Moves makes them; posted; then each
 * reconcilable line reconciled with the line it reverses (settleReversal). The original is not touched.
 */
async function reverseAfterClose(
  s: TrytonSession,
  document: TargetDocument,
  moveId: number,
  lock: string | null,
): Promise<PushResult> {
  const lines = await s.rpc.searchRead<PaidLine>(
    'account.move.line',
    [['move', '=', moveId]],
    paidLineFields,
  );
  const perInvoice = await partsPerInvoice(s, lines, lock);
  if (perInvoice) return reverseInParts(s, document, moveId, lines, perInvoice, lock);
  const [id] = await s.rpc.model<number[]>('account.move', 'create', [
    {
      journal: s.journals.get('MISC'),
      period: await periodOf(s, document.date),
      date: dateOf(document.date),
      origin: `account.move,${moveId}`,
      description: described(document),
      lines: [
        [
          'create',
          lines.map((l) => ({
            account: l.account,
            ...(l.party !== null ? { party: l.party } : {}),
            debit: l.credit,
            credit: l.debit,
            origin: `account.move.line,${l.id}`,
            description: `${document.description}${paidNote(l)}`,
          })),
        ],
      ],
    },
  ]);
  await post(s, document, { model: 'account.move', id: id as number });
  await settleReversal(s, id as number, lock);
  return {
    key: document.key,
    remoteIds: [`account.move,${id}`],
    contentHash: document.contentHash,
    created: true,
  };
}

/**
 * The reversal of a payment of several invoices after close: one move per invoice (reversal-parts.ts), made
 * in one call and posted in one, each settled as a reversal is (each invoice owed again on its own move).
 */
async function reverseInParts(
  s: TrytonSession,
  document: TargetDocument,
  moveId: number,
  lines: readonly PaidLine[],
  groups: PaidLine[][],
  lock: string | null,
): Promise<PushResult> {
  const period = await periodOf(s, document.date);
  const parts = spreadLines(lines, groups);
  const ids = await s.rpc.model<number[]>(
    'account.move',
    'create',
    parts.map((part, k) => ({
      journal: s.journals.get('MISC'),
      period,
      date: dateOf(document.date),
      origin: `account.move,${moveId}`,
      description: `${described(document)} (part ${k + 1} of ${parts.length}: one per invoice the payment paid)`,
      lines: [['create', part.map((n) => negatedValues(n, document.description))]],
    })),
  );
  await s.rpc.model('account.move', 'post', ids);
  for (const id of ids) await settleReversal(s, id, lock);
  return {
    key: document.key,
    remoteIds: ids.map((id) => `account.move,${id}`),
    contentHash: document.contentHash,
    created: true,
  };
}

/**
 * Reconciles each open line of a posted reversal, on a reconcilable account, with the line it reverses
 * (its origin): what Tryton's Cancel Moves does, so an invoice the original paid is owed again (Tryton's
 * amount to pay leaves out reconciled payment lines). A reversed line already reconciled is unreconciled
 * first only when its reconciliation is dated after the lock; one dated on or before it belongs to the
 * closed period and stays: then the reversal's line stays open on the party, which owes the amount again,
 * and the invoice the reversed line paid owes it again (the reversal added to its additional moves).
 * Idempotent: lines reconciled already are left.
 */
async function settleReversal(s: TrytonSession, reversalId: number, lock: string | null): Promise<void> {
  const lines = await s.rpc.searchRead<LineRow & { origin: string | null; state?: string }>(
    'account.move.line',
    [
      ['move', '=', reversalId],
      ['move.state', '=', 'posted'],
      ['reconciliation', '=', null],
      ['account.reconcile', '=', true],
    ],
    ['account', 'reconciliation', 'origin'],
  );
  let settled = false;
  const kept: KeptLine[] = [];
  for (const line of lines) {
    const originId = line.origin?.startsWith('account.move.line,') ? Number(line.origin.split(',')[1]) : null;
    if (originId === null) continue;
    const [reversed] = await s.rpc.model<(LineRow & { invoice_payment: number | null })[]>(
      'account.move.line',
      'read',
      [originId],
      ['account', 'reconciliation', 'invoice_payment'],
    );
    if (!reversed || reversed.account !== line.account) continue;
    if (reversed.reconciliation !== null) {
      const [reconciliation] = await s.rpc.model<{ date: unknown }[]>(
        'account.move.reconciliation',
        'read',
        [reversed.reconciliation],
        ['date'],
      );
      const on = isoDateOf(reconciliation?.date);
      if (lock !== null && (on === null || on <= lock)) {
        s.options.logger?.info(
          { reversal: reversalId, line: originId, reconciliation: reversed.reconciliation, lock },
          "reversed line's reconciliation is in the closed period: kept, the reversal's line left open",
        );
        kept.push({ line: line.id, reversed: originId });
        continue;
      }
      await unreconcile(s, [reversed]);
    }
    // Reversed, the line no longer pays its invoice: taken off the invoice's payment lines, or Tryton would
    // count it still and refuse the invoice's next payment as more than the invoice (`check_payment_lines`).
    // The reversal's line names the invoice (paidNote) for the money applied to the return later.
    if (reversed.invoice_payment !== null) {
      await invoicesProcessed(s, [originId]);
      await s.rpc.model('account.invoice', 'write', [reversed.invoice_payment], {
        payment_lines: [['remove', [originId]]],
      });
    }
    await reconcileLines(s, [originId, line.id]);
    settled = true;
  }
  // The invoice the kept lines paid owes them again, the reversal one of its additional moves (owed-again.ts).
  await invoiceOwedAgain(s, reversalId, kept);
  if (!settled) return;
  const [move] = await s.rpc.model<{ origin: string | null }[]>(
    'account.move',
    'read',
    [reversalId],
    ['origin'],
  );
  if (move?.origin?.startsWith('account.move,')) {
    await reconcileInvoicesPaidBy(s, Number(move.origin.split(',')[1]));
  }
}
