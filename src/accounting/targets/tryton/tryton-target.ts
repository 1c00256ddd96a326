import type { AccountRole } from '../account-mapping.js';
import { datedOpen, LockReader, laterOf, reversesInPlace } from '../closed-periods.js';
import { TargetConfigurationError, TargetConflictError, TargetRefusedError } from '../errors.js';
import { pushOneByOne } from '../push-one-by-one.js';
import type { TargetFigures, TargetFiguresReader } from '../target-figures.js';
import type {
  AccountingTarget,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../target-port.js';
import { TrytonFigures } from './figures.js';
import {
  closedPeriodRefusal,
  described,
  heldAsInvoice,
  type LineRow,
  lowersInvoice,
  marker,
  moveOwnerNote,
  type OriginalLine,
} from './helpers.js';
import { applyCredit, creditInvoice, pushInvoice } from './invoices.js';
import { dateOf, isoDateOf, TrytonRpc, TrytonWarningError } from './json-rpc.js';
import { pushMove } from './moves.js';
import { closedThrough, periodOf, post, redate } from './posting.js';
import { invoiceSettled, reconcileIfPaid, reconcileInvoicesPaidBy, unreconcile } from './reconciliation.js';
import { findByKey, findRecord, moveRecord } from './records.js';
import type { TrytonSession, TrytonTargetOptions } from './session.js';

// booksync's documents as Tryton's own (account, account_invoice, party modules):
// - invoice, invoice-adjustment, debit-memo, refund-reopen: a posted customer invoice (account.invoice, type
//   out) on the mapped revenue / fee income / refunds account; an adjustment that lowers the amount is a
//   credit note (negative invoice) applied to the link's invoice as one of its payment lines (its amount to
//   pay is the service's remainder); a debit memo, and the amount a refund reopens, are their own invoices,
//   so the customer sees each as a separate document.
// - bill: a posted supplier invoice (type in) on the bill expense account.
// - everything else: a posted move (account.move, journal MISC) with the document's lines through the
//   account mapping; receivable and payable lines carry the party and are added to the invoice's payment
//   lines (so Tryton's amount to pay moves with them), and an invoice paid in full is reconciled (paid).
// - a payout (disbursement-pending) carrying receipts: the account it empties (Processor Clearing) credited
//   once per receipt, each line's origin the receipt's own line there, and once for what else it nets
//   (#carried), so Tryton alone says which payments are in it.
// - reversal of an invoice-held document (a memo voided, a lowering undone), in any month: a credit note
//   dated in the open period (#creditInvoice), never a cancel of the invoice's move, applied to the document.
// - reversal of a move, when the original and the reversal fall in the same month after the lock:
//   Tryton's own "Cancel Moves" wizard with reversal, linked to the original (origin), after unreconciling
//   its lines; Tryton reconciles the original with its reversal, so an invoice paid by the reversed payment
//   is owed again.
// - reversal across months or of a move on or before the lock: a new posted move dated on the reversal's
//   date (in the open period) with the original's lines negated, its origin the original (as Cancel Moves
//   makes it), the original untouched; each reconcilable line is reconciled with the original line it
//   reverses, unless that line is in a reconciliation dated on or before the lock (which stays as closed):
//   then the new receivable line stays open on the party. README, "Tryton: reversals after close".
// Warnings: Tryton asks a person to confirm some operations (res.user.warning). booksync confirms only
// those in `acknowledgedWarnings`, with the reason; any other refuses the push, first of all the closed
// period's ("If you cancel the move, the current period will be used"), which booksync never confirms.
// References (issue 30 item 7): a move's lines start their description with the business's own reference of
// the money (lineDescription); the move's description keeps booksync's marker.
// Idempotency: the entry key and content hash are written in the record's description
// (`booksync:{key} {hash}`) and searched before any create, so a crash between Tryton's create and
// booksync's index write finds the document instead of making a second one. A move of a link or bill adds
// `booksync link=<id>` / `booksync bill=<id>` after it (an invoice's comment names its link or bill), so
// Tryton's figures as of a day (figures.ts, figuresAsOf) count its receivable or payable line under it.

/**
 * The warnings of Tryton booksync confirms, by name (json-rpc.ts warningName), and why. Every other warning
 * (cancelling or copying a move of a closed period, cancelling delegated lines or an invoice's move,
 * deleting a write-off's reconciliation...) is a person's decision: the push is refused with its message.
 */
export const acknowledgedWarnings: Readonly<Record<string, string>> = {
  // booksync's invoices under one payment link share the link's name as their reference (a debit memo, the
  // amount a refund reopens): Tryton calls them similar, by design here.
  invoice_similar: 'the invoices of one payment link share its name as their reference',
  // An invoice booksync pushes records a sale that already happened (a backfill, a late memo).
  invoice_payment_term: 'the invoice records a sale that already happened: its payment date may be past',
  // The business's day (BOOKS_TIME_ZONE) may be ahead of the Tryton server's.
  invoice_date_future: "the business's day may be ahead of the Tryton server's date",
};

export class TrytonTarget implements AccountingTarget, TargetFiguresReader {
  readonly name = 'tryton';
  /** The connection, the options and the caches the adapter's modules share (session.ts). */
  readonly #s: TrytonSession;
  #accountIds: Map<AccountRole, number> | null = null;

  constructor(options: TrytonTargetOptions) {
    this.#s = {
      name: this.name,
      // Tryton's warnings ask a person to confirm: booksync confirms only those listed, with the reason.
      rpc: new TrytonRpc({
        ...options,
        acknowledgeWarnings: (name) => Object.hasOwn(acknowledgedWarnings, name),
      }),
      options,
      journals: new Map(),
      paymentTerm: null,
      parties: new Map(),
      periods: new Map(),
      locks: new LockReader(() => closedThrough(this.#s)),
      lastIssued: null,
    };
  }

  get rpc(): TrytonRpc {
    return this.#s.rpc;
  }

  async verify(): Promise<void> {
    await this.#s.rpc.login();
    const codes = Object.values(this.#s.options.accounts);
    const found = await this.#s.rpc.searchRead<{ id: number; code: string }>(
      'account.account',
      [['code', 'in', codes]],
      ['code'],
    );
    const byCode = new Map(found.map((a) => [a.code, a.id]));
    const problems: string[] = [];
    const ids = new Map<AccountRole, number>();
    for (const [role, code] of Object.entries(this.#s.options.accounts) as [AccountRole, string][]) {
      const id = byCode.get(code);
      if (id === undefined) problems.push(`account ${code} (${role}) is not in Tryton's chart of accounts`);
      else ids.set(role, id);
    }
    const journals = await this.#s.rpc.searchRead<{ id: number; code: string }>(
      'account.journal',
      [],
      ['code'],
    );
    for (const j of journals) this.#s.journals.set(j.code, j.id);
    for (const code of ['REV', 'EXP', 'MISC']) {
      if (!this.#s.journals.has(code)) problems.push(`journal ${code} is missing in Tryton`);
    }
    const terms = await this.#s.rpc.model<number[]>('account.invoice.payment_term', 'search', [], 0, 1, null);
    if (terms.length === 0) problems.push('Tryton has no invoice payment term');
    if (problems.length > 0) throw new TargetConfigurationError(this.name, problems);
    this.#s.paymentTerm = terms[0] ?? null;
    this.#accountIds = ids;
  }

  async #ready(): Promise<Map<AccountRole, number>> {
    if (!this.#accountIds) await this.verify();
    return this.#accountIds as Map<AccountRole, number>;
  }

  /**
   * The end of Tryton's latest closed (or locked) period or fiscal year: Tryton refuses a move in a closed
   * period, so a document dated on or before it is dated the day after.
   */
  async lockedThrough(): Promise<string | null> {
    return this.#s.locks.get();
  }

  /**
   * Tryton's own figures as of the end of `day` (figures.ts): each mapped account's balance as Tryton
   * computes it under {date, posted}, and what is open per link and bill from the receivable and payable
   * lines its Aged Balance counts as of the day.
   */
  async figuresAsOf(day: string): Promise<TargetFigures> {
    return new TrytonFigures(this.#s.rpc, await this.#ready()).asOf(day);
  }

  async find(key: string): Promise<RemoteRecord | null> {
    return findByKey(this.#s, key);
  }

  async push(given: TargetDocument, context: PushContext): Promise<PushResult> {
    try {
      return await this.#pushUnderLock(given, context);
    } catch (error) {
      if (!(error instanceof TargetRefusedError && closedPeriodRefusal.test(error.targetMessage)))
        throw error;
      // A period closed since the lock was read: read it again and push once more, dated after it (a draft
      // Tryton kept from the refused attempt is re-dated then). Refused again, the refusal stands.
      this.#s.locks.forget();
      return this.#pushUnderLock(given, { ...context, mayExist: () => true });
    }
  }

  async #pushUnderLock(given: TargetDocument, context: PushContext): Promise<PushResult> {
    const accounts = await this.#ready();
    // The effective lock: Tryton's closed periods or the ledger's closed day, the later.
    const lock = laterOf(await this.#s.locks.get(), context.closedThrough);
    if (given.kind === 'reversal') return this.#reverse(given, lock, context);
    // Dated out of a closed period, its own date kept in its description.
    return this.#pushDated(datedOpen(given, lock), accounts, context);
  }

  /** Looked up first only when an earlier attempt may have created it (a crash, a refusal at posting). */
  async #pushDated(
    document: TargetDocument,
    accounts: Map<AccountRole, number>,
    context: PushContext,
  ): Promise<PushResult> {
    const existing = context.mayExist(document.key) ? await findRecord(this.#s, document.key) : null;
    if (existing) {
      if (existing.contentHash !== document.contentHash) {
        throw new TargetConflictError(this.name, document.key, existing.contentHash, document.contentHash);
      }
      // Created, then refused at posting (a closed period) or cut short by a crash: post it now.
      if (existing.draft) {
        await redate(this.#s, existing.draft, document);
        await post(this.#s, document, existing.draft);
        const invoice =
          existing.draft.model === 'account.move' ? await invoiceSettled(this.#s, document, context) : null;
        if (invoice) await reconcileIfPaid(this.#s, invoice.id);
      }
      // A credit note cut short between its post and its application: applied now (nothing when it was).
      const credit = existing.remoteIds[0]?.startsWith('account.invoice,') ? existing.remoteIds[0] : null;
      if (credit && lowersInvoice(document))
        await applyCredit(this.#s, Number(credit.split(',')[1]), document, context);
      const { key, remoteIds } = await this.find(document.key).then((r) => r ?? existing);
      return { key, remoteIds, contentHash: document.contentHash, created: existing.draft !== null };
    }
    switch (document.kind) {
      case 'invoice':
      case 'invoice-adjustment':
      case 'debit-memo':
      // The receivable a refund brings back: Tryton takes only credits as an invoice's payment lines, so
      // what the customer owes again is billed as its own invoice (on Refunds) under the same link.
      case 'refund-reopen':
        return pushInvoice(this.#s, document, 'out', accounts, context);
      case 'bill':
        return pushInvoice(this.#s, document, 'in', accounts, context);
      default:
        return pushMove(this.#s, document, accounts, context);
    }
  }

  readonly batches = false;

  pushMany(documents: TargetDocument[], context: PushContext): Promise<(PushResult | Error)[]> {
    return pushOneByOne(this, documents, context);
  }

  warning(): string | null {
    return null;
  }

  async close(): Promise<void> {}

  /**
   * A reversal: Cancel Moves in place when the original and the reversal fall in the same month after the
   * lock, else a reversing move dated in the open period (closed-periods.ts). Found by key first.
   */
  async #reverse(given: TargetDocument, lock: string | null, context: PushContext): Promise<PushResult> {
    if (heldAsInvoice(given.key)) return creditInvoice(this.#s, given, lock, context);
    const existing = await moveRecord(this.#s, given.key);
    if (existing) {
      const id = Number(existing.remoteIds[0]?.split(',')[1]);
      // Created, then refused at posting or cut short: post it now (dated after a lock read since).
      if (existing.draft) {
        await redate(this.#s, existing.draft, datedOpen(given, lock));
        await post(this.#s, given, existing.draft);
      }
      // Cut short between the post and the reconciliation: done now (nothing when done already).
      await this.#settleReversal(id, lock);
      return {
        key: given.key,
        remoteIds: existing.remoteIds,
        contentHash: given.contentHash,
        created: existing.draft !== null,
      };
    }
    const original = given.reverses ? await this.find(given.reverses) : null;
    const moveRef = original?.remoteIds.find((r) => r.startsWith('account.move,'));
    if (!original || !moveRef) {
      throw new TargetRefusedError(this.name, `${given.key}: ${given.reverses} is not in Tryton to reverse`);
    }
    const moveId = Number(moveRef.split(',')[1]);
    const [held] = await this.#s.rpc.model<{ date: unknown }[]>('account.move', 'read', [moveId], ['date']);
    const heldOn = isoDateOf(held?.date);
    if (reversesInPlace(given, lock, heldOn)) {
      try {
        return await this.#cancelInPlace(given, moveId);
      } catch (error) {
        // Tryton asks to confirm the cancel of a move whose period is closed (and would date the cancel
        // move today): booksync never confirms it. Its period closed since the lock was read: read again.
        if (!(error instanceof TrytonWarningError) || !closedPeriodRefusal.test(error.targetMessage))
          throw error;
        this.#s.locks.forget();
        lock = laterOf(await this.#s.locks.get(), context.closedThrough);
        if (reversesInPlace(given, lock, heldOn)) {
          throw new TargetRefusedError(
            this.name,
            `${given.key}: Tryton asks to confirm cancelling move ${moveId} of a closed period, which booksync never confirms (${error.targetMessage})`,
          );
        }
      }
    }
    return this.#reverseAfterClose(datedOpen(given, lock), moveId, lock);
  }

  /** Tryton's own Cancel Moves (with reversal) on the original, after unreconciling its lines. */
  async #cancelInPlace(document: TargetDocument, moveId: number): Promise<PushResult> {
    const lines = await this.#s.rpc.searchRead<LineRow>(
      'account.move.line',
      [['move', '=', moveId]],
      ['reconciliation'],
    );
    await unreconcile(this.#s, lines);
    await this.#s.rpc.wizard(
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
    const reversal = await this.find(document.key);
    if (!reversal)
      throw new TargetRefusedError(this.name, `${document.key}: Tryton's cancel wizard made no move`);
    await reconcileInvoicesPaidBy(this.#s, moveId);
    return { ...reversal, contentHash: document.contentHash, created: true };
  }

  /**
   * The reversal of a move of an earlier month or of a closed period: a new move dated in the open period
   * with the original's lines negated (debit and credit swapped, same accounts and parties), its origin the
   * original and each line's the line it reverses, as Tryton's Cancel Moves makes them; posted; then each
   * reconcilable line reconciled with the line it reverses (#settleReversal). The original is not touched.
   */
  async #reverseAfterClose(
    document: TargetDocument,
    moveId: number,
    lock: string | null,
  ): Promise<PushResult> {
    const lines = await this.#s.rpc.searchRead<OriginalLine>(
      'account.move.line',
      [['move', '=', moveId]],
      ['account', 'party', 'debit', 'credit'],
    );
    const [id] = await this.#s.rpc.model<number[]>('account.move', 'create', [
      {
        journal: this.#s.journals.get('MISC'),
        period: await periodOf(this.#s, document.date),
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
              description: document.description,
            })),
          ],
        ],
      },
    ]);
    await post(this.#s, document, { model: 'account.move', id: id as number });
    await this.#settleReversal(id as number, lock);
    return {
      key: document.key,
      remoteIds: [`account.move,${id}`],
      contentHash: document.contentHash,
      created: true,
    };
  }

  /**
   * Reconciles each open line of a posted reversal, on a reconcilable account, with the line it reverses
   * (its origin): what Tryton's Cancel Moves does, so an invoice the original paid is owed again (Tryton's
   * amount to pay leaves out reconciled payment lines). A reversed line already reconciled is unreconciled
   * first only when its reconciliation is dated after the lock; one dated on or before it belongs to the
   * closed period and stays: then the reversal's line stays open on the party, which owes the amount again.
   * Idempotent: lines reconciled already are left.
   */
  async #settleReversal(reversalId: number, lock: string | null): Promise<void> {
    const lines = await this.#s.rpc.searchRead<LineRow & { origin: string | null; state?: string }>(
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
    for (const line of lines) {
      const originId = line.origin?.startsWith('account.move.line,')
        ? Number(line.origin.split(',')[1])
        : null;
      if (originId === null) continue;
      const [reversed] = await this.#s.rpc.model<LineRow[]>(
        'account.move.line',
        'read',
        [originId],
        ['account', 'reconciliation'],
      );
      if (!reversed || reversed.account !== line.account) continue;
      if (reversed.reconciliation !== null) {
        const [reconciliation] = await this.#s.rpc.model<{ date: unknown }[]>(
          'account.move.reconciliation',
          'read',
          [reversed.reconciliation],
          ['date'],
        );
        const on = isoDateOf(reconciliation?.date);
        if (lock !== null && (on === null || on <= lock)) {
          this.#s.options.logger?.info(
            { reversal: reversalId, line: originId, reconciliation: reversed.reconciliation, lock },
            "reversed line's reconciliation is in the closed period: kept, the reversal's line left open",
          );
          continue;
        }
        await unreconcile(this.#s, [reversed]);
      }
      await this.#s.rpc.wizard('account.move.reconcile_lines', 'start', {}, 'account.move.line', [
        originId,
        line.id,
      ]);
      settled = true;
    }
    if (!settled) return;
    const [move] = await this.#s.rpc.model<{ origin: string | null }[]>(
      'account.move',
      'read',
      [reversalId],
      ['origin'],
    );
    if (move?.origin?.startsWith('account.move,')) {
      await reconcileInvoicesPaidBy(this.#s, Number(move.origin.split(',')[1]));
    }
  }
}
