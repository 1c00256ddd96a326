import type { AccountRole } from '../account-mapping.js';
import { datedOpen, LockReader, laterOf } from '../closed-periods.js';
import { TargetConfigurationError, TargetConflictError, TargetRefusedError } from '../errors.js';
import type { TargetFigures, TargetFiguresReader } from '../target-figures.js';
import type {
  AccountingTarget,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../target-port.js';
import { accountProblems, mismatchLine, readChartAccounts } from './account-types.js';
import { pushInBatches } from './batches.js';
import { reapplyCredits } from './credit-applications.js';
import { TrytonFigures } from './figures.js';
import { closedPeriodRefusal, lowersInvoice, writesOffInvoice } from './helpers.js';
import { pushInvoice } from './invoices.js';
import { TrytonRpc } from './json-rpc.js';
import { completeLowering } from './lowerings.js';
import { pushMove } from './moves.js';
import { openingSideOf, reconcileOpeningPayable } from './opening-payables.js';
import { pushOpeningMove, reconcileOpeningReceivable } from './opening-receivables.js';
import { closedThrough, post, redate } from './posting.js';
import { invoiceSettled, reconcileIfPaid } from './reconciliation.js';
import { findByKey, findRecord } from './records.js';
import { reverse } from './reversals.js';
import type { TrytonSession, TrytonTargetOptions } from './session.js';

// booksync's documents as Tryton's own (account, account_invoice, party modules):
// - invoice, invoice-adjustment, debit-memo, refund-reopen: a posted customer invoice (account.invoice, type
//   out) on the mapped revenue / fee income / refunds account; an adjustment that lowers the amount is a
//   credit note (negative invoice) applied to the link's invoice as one of its payment lines (its amount to
//   pay is the service's remainder); a debit memo, and the amount a refund reopens, are their own invoices,
//   so the customer sees each as a separate document.
// - bill: a posted supplier invoice (type in) on the bill expense account; a bill still owed when the books
//   opened (its other side Opening Balances), a move on the vendor's payable (opening-payables.ts).
// - everything else: a posted move (account.move, journal MISC) with the document's lines through the
//   account mapping; receivable and payable lines carry the party and are added to the invoice's payment
//   lines (so Tryton's amount to pay moves with them), and an invoice paid in full is reconciled (paid).
// - a payout (disbursement-pending) carrying receipts: the account it empties (Processor Clearing) credited
//   once per receipt, each line's origin the receipt's own line there, and once for what else it nets
//   (moves.ts carriedReceipts), so Tryton alone says which payments are in it.
// - reversal of an invoice-held document (a memo voided, a lowering undone), in any month: a credit note
//   dated in the open period (invoices.ts creditInvoice), never a cancel of the invoice's move, applied to
//   the document.
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
// References: a move's lines start their description with the business's own reference of
// the money (lineDescription); the move's description keeps booksync's marker.
// Idempotency: the entry key and content hash are written in the record's description
// (`booksync:{key} {hash}`) and searched before any create, so a crash between Tryton's create and
// booksync's index write finds the document instead of making a second one. A move of a link or bill adds
// `booksync link=<id>` / `booksync bill=<id>` after it (an invoice's comment names its link or bill), so
// Tryton's figures as of a day (figures.ts, figuresAsOf) count its receivable or payable line under it.
// Layout: this class is the port (verify, push, find, lockedThrough, figuresAsOf) and sends each document to
// the module that writes it: invoices.ts (invoices, credit notes), moves.ts (moves, payouts' receipts),
// reversals.ts (reversals of moves); they share records.ts (look-up by key), parties.ts, posting.ts
// (periods, posting, issue dates), reconciliation.ts, helpers.ts, and the session (session.ts: the
// connection, the options and the caches of one TrytonTarget).

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
      vendorExpenseIds: new Map(),
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
    const vendors = Object.entries(this.#s.options.vendorExpenses ?? {});
    const codes = [...Object.values(this.#s.options.accounts), ...vendors.map(([, code]) => code)];
    // Each mapped account with its type: a role on an account of the wrong kind stops start-up here, before
    // Tryton refuses its documents one by one (account-types.ts).
    const found = await readChartAccounts(this.#s.rpc, [['code', 'in', codes]]);
    const byCode = new Map(found.map((a) => [a.code, a]));
    const problems: string[] = [];
    const ids = new Map<AccountRole, number>();
    for (const [role, code] of Object.entries(this.#s.options.accounts) as [AccountRole, string][]) {
      const account = byCode.get(code);
      if (account === undefined)
        problems.push(`account ${code} (${role}) is not in Tryton's chart of accounts`);
      else if (accountProblems(role, account).length > 0) problems.push(mismatchLine(role, account));
      else ids.set(role, account.id);
    }
    // A vendor's own expense account takes that vendor's bills: Bill Expenses' kind of account.
    for (const [vendor, code] of vendors) {
      const account = byCode.get(code);
      if (account === undefined)
        problems.push(
          `account ${code} (BillExpenses of vendor ${vendor}) is not in Tryton's chart of accounts`,
        );
      else if (accountProblems('BillExpenses', account).length > 0)
        problems.push(mismatchLine('BillExpenses', account));
      else this.#s.vendorExpenseIds.set(vendor, account.id);
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
    const accounts = await this.#ready();
    const vendorAccounts = [...new Set(this.#s.vendorExpenseIds.values())].filter(
      (id) => id !== accounts.get('BillExpenses'),
    );
    return new TrytonFigures(this.#s.rpc, accounts, vendorAccounts).asOf(day);
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
    // Dated out of a closed period, its own date kept in its description.
    const result =
      given.kind === 'reversal'
        ? await reverse(this.#s, given, lock, context)
        : await this.#pushDated(datedOpen(given, lock), accounts, context);
    // The customer's credit the documents it reopened or opened take (credit-applications.ts), dated as the
    // entry taking it.
    if (given.reapplies?.length) await reapplyCredits(this.#s, datedOpen(given, lock), context);
    return result;
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
      // A lowering's credit notes created, then refused at posting or cut short: posted and applied now
      // (nothing for what was).
      if (lowersInvoice(document)) {
        const completed = await completeLowering(this.#s, document, context);
        if (completed) return completed;
      }
      // Created, then refused at posting (a closed period) or cut short by a crash: post it now.
      if (existing.draft) {
        await redate(this.#s, existing.draft, document);
        await post(this.#s, document, existing.draft);
        const invoice =
          existing.draft.model === 'account.move' ? await invoiceSettled(this.#s, document, context) : null;
        if (invoice) await reconcileIfPaid(this.#s, invoice.id);
        if (existing.draft.model === 'account.move') {
          await reconcileOpeningReceivable(this.#s, document, context);
          await reconcileOpeningPayable(this.#s, document, context);
        }
      }
      const { key, remoteIds } = await this.find(document.key).then((r) => r ?? existing);
      return { key, remoteIds, contentHash: document.contentHash, created: existing.draft !== null };
    }
    // An invoice or a bill still owed when the books opened: the receivable or payable brought forward, as a move.
    const opening = openingSideOf(document);
    if (opening) return pushOpeningMove(this.#s, document, accounts, context, opening);
    // A receivable written off as bad debt: a move paying the link's invoice (no credit note takes an
    // expense account).
    if (writesOffInvoice(document)) return pushMove(this.#s, document, accounts, context);
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
      default: {
        const result = await pushMove(this.#s, document, accounts, context);
        await reconcileOpeningReceivable(this.#s, document, context);
        await reconcileOpeningPayable(this.#s, document, context);
        return result;
      }
    }
  }

  /** Tryton creates and posts many records in one call (batches.ts): a slice costs a few calls a wave. */
  readonly batches = true;

  async pushMany(documents: TargetDocument[], context: PushContext): Promise<(PushResult | Error)[]> {
    let accounts: Map<AccountRole, number>;
    let lock: string | null;
    try {
      accounts = await this.#ready();
      lock = laterOf(await this.#s.locks.get(), context.closedThrough);
    } catch (error) {
      // Not verified (Tryton unreachable, a mapped account missing): no document's own answer, one error
      // for all (the push tries the first alone, the rest wait).
      const failed = error instanceof Error ? error : new Error(String(error));
      return documents.map(() => failed);
    }
    return pushInBatches(this.#s, documents, context, {
      accounts,
      lock,
      one: (document, ctx) => this.push(document, ctx),
    });
  }

  warning(): string | null {
    return null;
  }

  async close(): Promise<void> {}
}
