import { alreadyPushed } from '../already-pushed.js';
import { LockReader, laterOf } from '../closed-periods.js';
import {
  isTargetRefusal,
  TargetConfigurationError,
  TargetConflictError,
  TargetDisconnectedError,
  TargetUnavailableError,
} from '../errors.js';
import type { TargetFigures, TargetFiguresReader } from '../target-figures.js';
import type {
  AccountingTarget,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../target-port.js';
import { AccountTypeError, type AccountTypeMismatch, mismatchLine } from './account-types.js';
import { AccountDirectory, type Ref } from './accounts.js';
import { createInWaves, lookUpAll, prefetch } from './batches.js';
import { applied, reapplied } from './credit-memos.js';
import { DocumentMapper } from './documents.js';
import { isClosedPeriod } from './faults.js';
import { QuickBooksFigures } from './figures.js';
import { asError, entityOf } from './helpers.js';
import { QboClient } from './http-client.js';
import { ItemDirectory } from './items.js';
import { createRequestId, markersIn } from './keys.js';
import { realmLimiter } from './limiter.js';
import { findIn, locate } from './look-ups.js';
import { linkedToPayout } from './netted-later.js';
import { PartyDirectory } from './parties.js';
import { planFor } from './plans.js';
import { reverse } from './reversals.js';
import { open, type QuickBooksSession, type QuickBooksTargetOptions, remember } from './session.js';
import { SalesTaxCode } from './tax-codes.js';
import { withTransfer } from './unapplied-cash.js';

// QuickBooks Online behind the accounting-target port. Idempotency: when an earlier attempt may have written
// (PushContext.mayExist) push() first looks the key's marker up at QBO, so a lost answer or a crash between a
// create and the index write finds the record instead of making a second one, whether or not QBO honours the
// requestid every create also carries (derived from the entry key and the company: a second guard only).
//
// Finding a key (find): QBO filters only on the properties Intuit documents as filterable (not PrivateNote,
// not Payment's DocNumber, not Deposit's), so a query narrows the rows by such a property and the key is
// read back client-side from the marker in PrivateNote (`booksync key=<key> hash=<hash>`, anywhere in it: a
// void prefixes "Voided"), with its content hash:
// - documents booksync numbers itself (journal entries, refund receipts, charge invoices, credit memos):
//   `DocNumber = '<tag>'`;
// - bill payments, numbered with the vendor check's number when there is one (else the tag):
//   `DocNumber IN ('<check number>', '<tag>')` from the document, its tag then a scan with the key alone;
// - invoices and bills, numbered by the link's name or the vendor's number: `DocNumber IN (<the numbers
//   this key can have>)`, from the document;
// - payments and deposits: `TxnDate = '<the document's date>'`, page by page;
// - with the key alone (a restarted worker's find, a reversal whose original is not in the index): the
//   entity's rows newest first, page by page, until the marker is found.
// A voided invoice, payment or bill payment keeps its own marker and gains its reversal's, so both keys stay
// findable. What this adapter made or found is remembered (key -> record), so later documents need no query.
//
// remoteIds are `<Entity>:<Id>` (`void:<Entity>:<Id>` for a void), so later documents know what to link to.
// An entry made of two documents lists both: a lowered invoice's credit memo and its application Payment; a
// deposited check's credit applied, its Payment and its Unapplied Cash journal (the journal's marker carries
// ` part=unapplied-cash`, its number transferTag(key)), and a void of that Payment and the journal reversing it.
//
// Layout: this class is the port (verify, push, pushMany, find, lockedThrough, figuresAsOf) and sends each
// document to the module that writes it: plans.ts (which QBO document an entry becomes), batches.ts
// (pushMany's look-ups, prefetch and waves), reversals.ts (voids and reversing documents), credit-memos.ts (a
// lowering's memo applied), unapplied-cash.ts (an applied check's journal); they share look-ups.ts (find by
// key), helpers.ts, and the session (session.ts: the client, the options and the caches of one target).

/**
 * A document whose push ends with a step after its create: a lowering's memo applied, a charge taking the
 * customer's credit, a netted entry linked.
 */
function needsStepAfterCreate(doc: TargetDocument): boolean {
  return doc.kind !== 'reversal' && (doc.kind === 'invoice-adjustment' || !!doc.reapplies || !!doc.nettedBy);
}

export class QuickBooksTarget implements AccountingTarget, TargetFiguresReader {
  readonly name = 'quickbooks';
  /** The QuickBooks company (realm id) this target pushes to. */
  readonly company: string;
  /** Its client, options, directories and caches, shared with the modules that write (session.ts). */
  private readonly session: QuickBooksSession;
  private readonly taxCode: SalesTaxCode;
  /** QBO's books closing date (Preferences), read at most once a minute. */
  private readonly locks: LockReader;

  private readonly options: QuickBooksTargetOptions;
  constructor(options: QuickBooksTargetOptions) {
    this.options = options;
    this.company = options.realmId;
    const client = new QboClient({
      baseUrl: options.baseUrl,
      realmId: options.realmId,
      tokens: options.tokenStore,
      limiter: options.limiter ?? realmLimiter(options.realmId),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const accounts = new AccountDirectory(client, options.accounts, options.vendorExpenses);
    const parties = new PartyDirectory(client, options.matching);
    this.taxCode = new SalesTaxCode(client, options.taxCode ?? 'NON');
    this.session = {
      name: 'quickbooks',
      client,
      options,
      accounts,
      parties,
      mapper: new DocumentMapper(accounts, new ItemDirectory(client, accounts), parties, this.taxCode),
      invoiceCustomers: new Map<string, Ref>(),
      known: new Map<string, RemoteRecord>(),
      numbers: null,
      ownDates: new Map<string, string>(),
      push: (document, context) => this.push(document, context),
    };
    this.locks = new LockReader(() => this.readBookCloseDate(), options.lockTtlMs);
  }

  /**
   * The books closing date: Preferences.AccountingInfoPrefs.BookCloseDate (Intuit's Preferences entity; QBO
   * refuses a transaction dated on or before it through the API, 6200 / 6210), null when the books are open.
   */
  async lockedThrough(): Promise<string | null> {
    return this.locks.get();
  }

  private async readBookCloseDate(): Promise<string | null> {
    const [preferences] = await this.session.client.select('Preferences', {});
    const prefs = preferences?.AccountingInfoPrefs as { BookCloseDate?: unknown } | undefined;
    return typeof prefs?.BookCloseDate === 'string' ? prefs.BookCloseDate.slice(0, 10) : null;
  }

  /** The effective lock: the later of QBO's closing date and the ledger's closed-through day. */
  private async lock(context: PushContext): Promise<string | null> {
    return laterOf(await this.locks.get(), context.closedThrough);
  }

  /**
   * Every mapped account present, of the type its role requires (account-types.ts), and the sales tax code;
   * a role on an account of the wrong type is an AccountTypeError naming the role, the account, its type and
   * the type required. Down or disconnected is not a configuration problem: the worker starts and the push
   * waits for it.
   */
  async verify(): Promise<void> {
    let problems: string[];
    let mismatches: AccountTypeMismatch[] = [];
    try {
      mismatches = await this.session.accounts.typeMismatches();
      problems = [
        ...(await this.session.accounts.problems()),
        ...mismatches.map(mismatchLine),
        ...(await this.taxCode.problems()),
      ];
    } catch (error) {
      if (error instanceof TargetUnavailableError || error instanceof TargetDisconnectedError) throw error;
      mismatches = [];
      problems = [`cannot reach QuickBooks company ${this.options.realmId}: ${(error as Error).message}`];
    }
    if (mismatches.length > 0) throw new AccountTypeError(this.name, problems, mismatches);
    if (problems.length > 0) throw new TargetConfigurationError(this.name, problems);
  }

  async push(document: TargetDocument, context: PushContext): Promise<PushResult> {
    try {
      return await this.pushOpen(document, context);
    } catch (error) {
      // The books were closed since the closing date was read: read it again and date the document after it.
      if (!isClosedPeriod(error)) throw error;
      this.locks.forget();
      return this.pushOpen(document, context);
    }
  }

  private async pushOpen(original: TargetDocument, context: PushContext): Promise<PushResult> {
    const lock = await this.lock(context);
    if (original.kind === 'reversal')
      return reapplied(this.session, original, await reverse(this.session, original, context, lock), context);
    const document = open(this.session, original, lock);
    // Netted by a payout whose Deposit exists already: that Deposit links it (netted-later.ts).
    const result = await this.pushDocument(document, context);
    return linkedToPayout(this.session, document, result, context, lock);
  }

  /** A document dated in the open period: found when an earlier attempt may have made it, else created. */
  private async pushDocument(document: TargetDocument, context: PushContext): Promise<PushResult> {
    // Looked up only when an earlier attempt may have created it (context.mayExist), where the document
    // goes (QBO's 500 requests a minute are the bottleneck); a journal fallback when the plan says so.
    const primary = entityOf(document.key);
    const mayExist = context.mayExist(document.key);
    const existing = mayExist ? await findIn(this.session, primary, document.key, document) : null;
    if (existing)
      return applied(this.session, document, alreadyPushed(this.name, existing, document), context);
    const plan = await planFor(this.session, document, context);
    if ('found' in plan) return applied(this.session, document, plan.found, context);
    if (mayExist && plan.entity !== primary) {
      const fallback = await findIn(this.session, plan.entity, document.key, document);
      if (fallback) return alreadyPushed(this.name, fallback, document);
    }
    const created = await this.session.client.write(plan.entity, plan.body, {
      requestid: createRequestId(document.key, plan.body, context.refusals(document.key)),
    });
    remember(this.session, plan.entity, created);
    // A replayed requestid answers with the first create's record: if that had other contents, say so.
    const stored = markersIn(created.PrivateNote).find((m) => m.key === document.key);
    if (stored && stored.contentHash !== document.contentHash) {
      throw new TargetConflictError(this.name, document.key, stored.contentHash, document.contentHash);
    }
    this.session.known.set(document.key, {
      key: document.key,
      remoteIds: [`${plan.entity}:${created.Id}`],
      contentHash: document.contentHash,
    });
    this.options.logger?.info(
      { key: document.key, entity: plan.entity, id: created.Id },
      'pushed to quickbooks',
    );
    return applied(
      this.session,
      document,
      {
        key: document.key,
        remoteIds: [`${plan.entity}:${created.Id}`],
        contentHash: document.contentHash,
        created: true,
      },
      context,
    );
  }

  async find(key: string): Promise<RemoteRecord | null> {
    return locate(this.session, key);
  }

  /**
   * QuickBooks' own figures as of the end of `day` (figures.ts): its TrialBalance per mapped account, and
   * its AgedReceivableDetail / AgedPayableDetail per link and bill, read from QBO, not from the push index.
   */
  async figuresAsOf(day: string): Promise<TargetFigures> {
    return new QuickBooksFigures(this.session.client, this.session.accounts).asOf(day);
  }

  async close(): Promise<void> {}

  /**
   * A backlog in batches: the documents' keys looked up 30 to a request, then what is missing created 30 to
   * a request, in waves, where a document that needs one created in the same wave (a payment and its
   * invoice) waits for the next. As push(): looked up before created, so a crash after a batch create and
   * before the index write finds the records on the next run; the batch's requestid replays a lost answer.
   * Reversals go one by one through push().
   */
  readonly batches = true;
  /** A surcharge, fee or refund pushed after its payout's Deposit is linked to it (netted-later.ts). */
  readonly payoutFacts = ['nettedBy'] as const;

  /** QuickBooks' limits are waited out by the limiter: nothing to say before a push stops. */
  warning(): string | null {
    return null;
  }

  async pushMany(given: TargetDocument[], context: PushContext): Promise<(PushResult | Error)[]> {
    const outcomes: (PushResult | Error | undefined)[] = new Array(given.length);
    let documents = given;
    // Made, with the step after the create (a memo's application, a link to its payout's Deposit) done.
    const finished = new Set<number>();
    try {
      // Dated out of the closed period (reversals decide for themselves, in push()).
      const lock = await this.lock(context);
      documents = given.map((d) => (d.kind === 'reversal' ? d : open(this.session, d, lock)));
      await lookUpAll(
        this.session,
        documents.filter((d) => context.mayExist(d.key)),
        documents,
        outcomes,
      );
      for (const [i, doc] of documents.entries()) {
        const found = outcomes[i];
        if (found) outcomes[i] = await withTransfer(this.session, doc, found, context);
      }
      await prefetch(this.session, documents, outcomes);
      await createInWaves(this.session, documents, outcomes, context);
      // Lowered invoices' credit memos applied to their invoices, once the slice's invoices exist; what a
      // payout nets linked to its Deposit when that exists (netted-later.ts).
      for (const [i, doc] of documents.entries()) {
        const outcome = outcomes[i];
        if (!outcome || outcome instanceof Error || !needsStepAfterCreate(doc)) continue;
        // Not applied or not linked (an outage, a refusal): the document is not settled, its retry finds
        // the memo and applies it, or finds the transaction and links it, then.
        try {
          const done = await applied(this.session, doc, outcome, context);
          outcomes[i] = await linkedToPayout(this.session, doc, done, context, lock);
          finished.add(i);
        } catch (error) {
          outcomes[i] = asError(error);
          if (!isTargetRefusal(error)) throw error;
        }
      }
    } catch (error) {
      // An outage, a throttle, a lost connection: what is not settled yet waits for the retry, in order
      // (a payment planned without its invoice would become a journal entry). A document made before it
      // whose step after the create did not run (a lowering's memo not applied yet, a fee not linked to its
      // Deposit) is not settled either: its retry finds it and takes that step.
      const cause = asError(error);
      for (let i = 0; i < outcomes.length; i++) {
        const doc = documents[i];
        const made = outcomes[i] !== undefined && !(outcomes[i] instanceof Error);
        if (made && doc && needsStepAfterCreate(doc) && !finished.has(i)) outcomes[i] = cause;
        outcomes[i] ??= cause;
      }
    }
    return outcomes.map((o) => o ?? new Error('not pushed'));
  }
}
