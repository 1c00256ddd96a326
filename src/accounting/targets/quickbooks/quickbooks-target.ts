import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { baseKey, isReversalKey, keyPrefix, keyVersion } from '../../entry-key.js';
import type { AccountMapping } from '../account-mapping.js';
import { alreadyPushed, foundOrConflict } from '../already-pushed.js';
import { datedOpen, LockReader, laterOf, reversesInPlace } from '../closed-periods.js';
import { amountToCents } from '../decimal-amounts.js';
import {
  isTargetRefusal,
  TargetConfigurationError,
  TargetConflictError,
  TargetDisconnectedError,
  TargetRefusedError,
  TargetUnavailableError,
} from '../errors.js';
import { PushWaves, refusalOrThrow } from '../push-waves.js';
import type { TargetFigures, TargetFiguresReader } from '../target-figures.js';
import type {
  AccountingTarget,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../target-port.js';
import { AccountDirectory, type Ref } from './accounts.js';
import {
  billNumber,
  billPaymentNumber,
  DocumentMapper,
  invoiceNumber,
  isTransferOf,
  type LinkedReceipt,
  type Pair,
  type Plan,
  pairOf,
  TRANSFER_PART,
  transferTag,
} from './documents.js';
import { isClosedPeriod, isDepositedRefusal, isStaleObject } from './faults.js';
import { QuickBooksFigures } from './figures.js';
import {
  BATCH_LIMIT,
  type BatchItem,
  type Filter,
  PAGE_SIZE,
  QboClient,
  type QboEntity,
  selectQuery,
} from './http-client.js';
import { ItemDirectory } from './items.js';
import { createRequestId, docNumberTag, marker, markersIn, requestIdFor } from './keys.js';
import { type RealmLimiter, realmLimiter } from './limiter.js';
import { type MatchingPolicy, PartyDirectory } from './parties.js';
import { SalesTaxCode } from './tax-codes.js';
import type { OAuthTokenStore } from './token-store.js';

// QuickBooks Online behind the accounting-target port. Idempotency: every create carries a requestid derived
// from the entry key (QBO replays the first result for it), and push() first looks the key up at QBO, so a
// crash between a create and the index write finds the record instead of making a second one.
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

export interface QuickBooksTargetOptions {
  baseUrl: string;
  realmId: string;
  tokenStore: OAuthTokenStore;
  accounts: AccountMapping;
  matching: MatchingPolicy;
  logger?: Logger;
  /** Defaults to the worker-wide limiter of the realm. */
  limiter?: RealmLimiter;
  /** How long the books closing date read from QBO is trusted (60 s; a closed-period refusal reads it again). */
  lockTtlMs?: number;
  /** The non-taxable sales tax code (Id or name) on every sales line: QBO_TAX_CODE, `NON` by default. */
  taxCode?: string;
}

const entityByKind: Record<string, string> = {
  invoice: 'Invoice',
  'debit-memo': 'Invoice',
  'refund-reopen': 'Invoice',
  payment: 'Payment',
  'external-payment': 'Payment',
  'check-application': 'Payment',
  sale: 'SalesReceipt',
  refund: 'RefundReceipt',
  'disbursement-pending': 'Deposit',
  'disbursement-paid': 'Deposit',
  'check-cleared': 'Deposit',
  'check-deposited': 'Deposit',
  bill: 'Bill',
  'bill-payment-sent': 'BillPayment',
  // A lowering (a write-off, a discount) is a CreditMemo; a raising a charge Invoice (found there next).
  'invoice-adjustment': 'CreditMemo',
};

/** QBO's own cancel: a voided invoice (nothing applied to it) or payment stays, with its amounts zeroed. */
const voidable = new Set(['Invoice', 'Payment', 'BillPayment', 'SalesReceipt']);
/**
 * How each is voided (Intuit's API reference, "Void a payment" / "Void a bill payment" / "Void a sales
 * receipt": a sparse update with include=void; "Void an invoice": operation=void; the PHP SDK's
 * CoreConstants: PAYMENTCLASSNAME = payment, salesreceipt take VOID_QUERYPARAMETER_PAYMENT, others _GENERAL).
 */
const voidQuery: Record<string, { operation: string; include?: string }> = {
  Invoice: { operation: 'void' },
  Payment: { operation: 'update', include: 'void' },
  BillPayment: { operation: 'update', include: 'void' },
  SalesReceipt: { operation: 'update', include: 'void' },
};
/**
 * What reverses a payment or bill payment that may not be voided (its month is past or closed): a document of
 * its own dated in the open period, as Intuit documents a bounced check ("Record a bounced check using an
 * invoice": an invoice for the customer, dated the day the check bounced, through an item whose account is the
 * one the payment went into), so the customer owes again and the closed period stays as it was. A bill
 * payment's reversal is the mirror: a bill for the vendor on the account the payment left.
 */
const reversingEntity: Record<string, string> = {
  Payment: 'Invoice',
  BillPayment: 'Bill',
  // A lowered invoice's credit memo stays (it may be applied, paid past, in a closed month): the amount owed
  // again is a charge invoice of its own, in any month.
  CreditMemo: 'Invoice',
};
/** Found by the date of the document: QBO filters neither Payment's nor Deposit's DocNumber. */
const byDate = new Set(['Payment', 'Deposit']);

/** QBO's void leaves "Voided" at the start of PrivateNote and the amounts at zero. */
function isVoided(record: QboEntity): boolean {
  return /^Voided\b/.test(String(record.PrivateNote ?? '')) && Number(record.TotalAmt ?? 0) === 0;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The row that carries this key's marker. */
function rowOf(rows: QboEntity[], key: string): QboEntity | null {
  return rows.find((r) => markersIn(r.PrivateNote).some((m) => m.key === key)) ?? null;
}

/** A batch of creates' requestid: its creates', so the same batch retried after a lost answer is replayed. */
function batchRequestId(createRequestIds: string[]): string {
  return requestIdFor(createRequestIds.join('\n'), 'batch');
}

function parseRemoteId(remoteId: string | undefined): { entity: string; id: string } | null {
  const parts = (remoteId ?? '').split(':');
  if (parts.length === 2 && parts[0] && parts[1]) return { entity: parts[0], id: parts[1] };
  return null;
}

/** Invoice numbers asked about in one query of a prefetch. */
const NUMBERS_PER_QUERY = 30;

/** A deposited check's credit applied to an invoice (Dr Unapplied Cash / Cr A/R), issue 30 item 4. */
function isCheckCreditApplied(doc: TargetDocument): boolean {
  const pair = pairOf(doc.lines);
  return (
    doc.kind === 'check-application' &&
    pair?.debit === 'UnappliedCash' &&
    pair.credit === 'AccountsReceivable'
  );
}

export class QuickBooksTarget implements AccountingTarget, TargetFiguresReader {
  readonly name = 'quickbooks';
  private readonly client: QboClient;
  private readonly accounts: AccountDirectory;
  private readonly taxCode: SalesTaxCode;
  private readonly parties: PartyDirectory;
  private readonly mapper: DocumentMapper;
  private readonly invoiceCustomers = new Map<string, Ref>();
  /** What this adapter made or found, by key: a later document (a payment, a reversal) needs no query. */
  private readonly known = new Map<string, RemoteRecord>();
  /** A backlog's invoice numbers and the invoices holding them, read in one request (prefetch); null: ask. */
  private numbers: Map<string, QboEntity[]> | null = null;
  /** QBO's books closing date (Preferences), read at most once a minute. */
  private readonly locks: LockReader;
  /** A document's own date, by key, when it was dated out of a closed period: a find looks there too. */
  private readonly ownDates = new Map<string, string>();

  constructor(private readonly options: QuickBooksTargetOptions) {
    this.client = new QboClient({
      baseUrl: options.baseUrl,
      realmId: options.realmId,
      tokens: options.tokenStore,
      limiter: options.limiter ?? realmLimiter(options.realmId),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.accounts = new AccountDirectory(this.client, options.accounts);
    this.parties = new PartyDirectory(this.client, options.matching);
    this.taxCode = new SalesTaxCode(this.client, options.taxCode ?? 'NON');
    this.mapper = new DocumentMapper(
      this.accounts,
      new ItemDirectory(this.client, this.accounts),
      this.parties,
      this.taxCode,
    );
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
    const [preferences] = await this.client.select('Preferences', {});
    const prefs = preferences?.AccountingInfoPrefs as { BookCloseDate?: unknown } | undefined;
    return typeof prefs?.BookCloseDate === 'string' ? prefs.BookCloseDate.slice(0, 10) : null;
  }

  /** The effective lock: the later of QBO's closing date and the ledger's closed-through day. */
  private async lock(context: PushContext): Promise<string | null> {
    return laterOf(await this.locks.get(), context.closedThrough);
  }

  /** The document dated out of the closed period; its own date remembered for finding it again. */
  private open(document: TargetDocument, lock: string | null): TargetDocument {
    const dated = datedOpen(document, lock);
    if (dated.date !== document.date) this.ownDates.set(document.key, document.date);
    return dated;
  }

  async verify(): Promise<void> {
    let problems: string[];
    try {
      problems = [...(await this.accounts.problems()), ...(await this.taxCode.problems())];
    } catch (error) {
      // Down or disconnected is not a configuration problem: the worker starts and the push waits for it.
      if (error instanceof TargetUnavailableError || error instanceof TargetDisconnectedError) throw error;
      problems = [`cannot reach QuickBooks company ${this.options.realmId}: ${(error as Error).message}`];
    }
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
    if (original.kind === 'reversal') return this.reverse(original, context, lock);
    const document = this.open(original, lock);
    // Looked up only when an earlier attempt may have created it (context.mayExist), where the document
    // goes (QBO's 500 requests a minute are the bottleneck); a journal fallback when the plan says so.
    const primary = this.entityOf(document.key);
    const mayExist = context.mayExist(document.key);
    const existing = mayExist ? await this.findIn(primary, document.key, document) : null;
    if (existing) return this.applied(document, alreadyPushed(this.name, existing, document), context);
    const plan = await this.plan(document, context);
    if ('found' in plan) return this.applied(document, plan.found, context);
    if (mayExist && plan.entity !== primary) {
      const fallback = await this.findIn(plan.entity, document.key, document);
      if (fallback) return alreadyPushed(this.name, fallback, document);
    }
    const created = await this.client.write(plan.entity, plan.body, {
      requestid: createRequestId(document.key, plan.body, context.refusals(document.key)),
    });
    this.remember(plan.entity, created);
    // A replayed requestid answers with the first create's record: if that had other contents, say so.
    const stored = markersIn(created.PrivateNote).find((m) => m.key === document.key);
    if (stored && stored.contentHash !== document.contentHash) {
      throw new TargetConflictError(this.name, document.key, stored.contentHash, document.contentHash);
    }
    this.known.set(document.key, {
      key: document.key,
      remoteIds: [`${plan.entity}:${created.Id}`],
      contentHash: document.contentHash,
    });
    this.options.logger?.info(
      { key: document.key, entity: plan.entity, id: created.Id },
      'pushed to quickbooks',
    );
    return this.applied(
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

  /**
   * What a document pushed still needs at QBO: a lowered invoice's credit memo applied to the link's invoice,
   * as QuickBooks applies a credit (a Payment of TotalAmt 0 whose lines link the Invoice and the CreditMemo:
   * Intuit's Payment reference, Line.LinkedTxn), for as much as the memo has left and the invoice still
   * owes, so the invoice's Balance is the service's remainder. What a paid invoice no longer owes stays the
   * customer's credit (the memo's Balance). Idempotent by QBO's own state: a memo found again (a re-push, a
   * crash after its create) applies only what it has left, nothing once applied. The application's Payment
   * is the result's second remote id when this push made it.
   */
  private async applied(doc: TargetDocument, result: PushResult, context: PushContext): Promise<PushResult> {
    if (isCheckCreditApplied(doc)) return this.transferred(doc, result, context);
    if (doc.kind !== 'invoice-adjustment' || !doc.invoice) return result;
    const memoRef = parseRemoteId(result.remoteIds[0]);
    if (memoRef?.entity !== 'CreditMemo') return result;
    const memo = await this.client.read('CreditMemo', memoRef.id);
    let left = amountToCents(Number(memo.Balance ?? 0));
    if (left <= 0 || isVoided(memo)) return result;
    // The link's invoices the credit goes to, as the ledger applied it (its own first, then a raise's or a
    // memo's charge invoice); a lowering booked before that split, on the link's own invoice for all of it.
    const own = `invoice:${doc.invoice.paymentLinkId}`;
    const parts = doc.settles?.applied ?? [{ key: own, amountCents: left }];
    const applied: { invoiceId: string; cents: number }[] = [];
    const state: string[] = [];
    for (const part of parts) {
      const ref = await this.earlier(part.key, context, part.key === own ? doc : undefined);
      if (ref?.entity !== 'Invoice') continue;
      const invoice = await this.client.read('Invoice', ref.id);
      const owed = amountToCents(Number(invoice.Balance ?? 0));
      const cents = Math.min(left, owed, part.amountCents);
      if (cents <= 0 || isVoided(invoice)) continue;
      applied.push({ invoiceId: ref.id, cents });
      state.push(`${ref.id}:${owed}`);
      left -= cents;
    }
    if (applied.length === 0) return result;
    const plan = this.mapper.creditApplication(doc, applied, memoRef.id, memo.CustomerRef as Ref);
    // Of the state read: a replay after a lost answer is the same write, a later application (what the memo
    // and the invoices hold has moved since) another, whether or not QBO moved the memo's SyncToken.
    const payment = await this.client.write(plan.entity, plan.body, {
      requestid: requestIdFor(
        `${doc.key}:apply@${memo.SyncToken}:${amountToCents(Number(memo.Balance ?? 0))}:${state.join(',')}`,
        'create',
      ),
    });
    this.options.logger?.info(
      { key: doc.key, creditMemo: memoRef.id, invoices: applied, payment: payment.Id },
      "credit memo applied to the link's invoices in quickbooks",
    );
    return { ...result, remoteIds: [result.remoteIds[0] as string, `Payment:${payment.Id}`] };
  }

  /**
   * A deposited check's credit applied to an invoice: its Payment (from Checks To Deposit) is made or found;
   * what it still needs is the journal Dr Unapplied Cash / Cr Checks To Deposit for the Payment's amount, so
   * the check's money stays in Checks To Deposit until it clears and the credit leaves Unapplied Cash. Looked
   * up by its own number (transferTag) when the Payment was found or an attempt may have made it, so a
   * re-push makes none twice. The journal is the result's second remote id.
   */
  private async transferred(
    doc: TargetDocument,
    result: PushResult,
    context: PushContext,
  ): Promise<PushResult> {
    const payment = parseRemoteId(result.remoteIds[0]);
    if (payment?.entity !== 'Payment') return result;
    const pair = pairOf(doc.lines) as Pair;
    const journal = await this.transferJournal(
      doc,
      !result.created || context.mayExist(doc.key),
      context,
      () =>
        this.mapper.unappliedCashTransfer(
          doc,
          'UnappliedCash',
          'ChecksToDeposit',
          pair.cents,
          `moves the check's credit out of Unapplied Cash, applied by Payment ${payment.id}`,
        ),
    );
    const remoteIds = [result.remoteIds[0] as string, `JournalEntry:${journal}`];
    this.known.set(doc.key, { key: doc.key, remoteIds, contentHash: result.contentHash });
    return { ...result, remoteIds };
  }

  /**
   * An applied check's credit settled in a backlog (found or created): its Unapplied Cash journal is made at
   * once, before any reversal in the same backlog runs. A returned check's void looks that journal up to
   * reverse it; a journal made after the void (as when every follow-up waited for the end of the backlog)
   * stayed unreversed, the check's 600.00 left in Unapplied Cash and out of Checks To Deposit. A refusal
   * settles the document with it.
   */
  private withTransfer(
    doc: TargetDocument,
    outcome: PushResult | Error,
    context: PushContext,
  ): Promise<PushResult | Error> {
    if (outcome instanceof Error || !isCheckCreditApplied(doc)) return Promise.resolve(outcome);
    return refusalOrThrow(() => this.transferred(doc, outcome, context));
  }

  /** The Unapplied Cash journal of `doc`'s key: found by its number when it may exist, else created. */
  private async transferJournal(
    doc: TargetDocument,
    lookUp: boolean,
    context: PushContext,
    plan: () => Promise<Plan>,
  ): Promise<string> {
    if (lookUp) {
      const found = await this.transferOf(doc.key);
      if (found) return found;
    }
    const { entity, body } = await plan();
    const created = await this.client.write(entity, body, {
      requestid: createRequestId(`${doc.key} ${TRANSFER_PART}`, body, context.refusals(doc.key)),
    });
    this.options.logger?.info(
      { key: doc.key, entity, id: created.Id },
      'unapplied cash journal pushed to quickbooks',
    );
    return created.Id;
  }

  /** The Id of the Unapplied Cash journal carrying `key`'s marker, null when QBO has none. */
  private async transferOf(key: string): Promise<string | null> {
    const rows = await this.client.select('JournalEntry', { DocNumber: transferTag(key) });
    return rows.find((r) => isTransferOf(r.PrivateNote, key))?.Id ?? null;
  }

  async find(key: string): Promise<RemoteRecord | null> {
    return this.locate(key);
  }

  /**
   * QuickBooks' own figures as of the end of `day` (figures.ts): its TrialBalance per mapped account, and
   * its AgedReceivableDetail / AgedPayableDetail per link and bill, read from QBO, not from the push index.
   */
  async figuresAsOf(day: string): Promise<TargetFigures> {
    return new QuickBooksFigures(this.client, this.accounts).asOf(day);
  }

  /** find(), narrowed by what a document says of the record (its number, its date) when there is one. */
  private async locate(key: string, hint?: TargetDocument): Promise<RemoteRecord | null> {
    const known = this.known.get(key);
    if (known) return known;
    if (isReversalKey(key)) {
      const original = key.slice('reversal:'.length);
      const entity = this.entityOf(original);
      if (voidable.has(entity)) {
        const record = await this.lookup(entity, original);
        const mark = record && markersIn(record.PrivateNote).find((m) => m.key === key);
        if (record && mark)
          return { key, remoteIds: [`void:${entity}:${record.Id}`], contentHash: mark.contentHash };
      }
      // Reversed after close: the charge invoice (a payment's) or bill (a bill payment's) of its own.
      const reversing = reversingEntity[entity];
      if (reversing) {
        const found = await this.findIn(reversing, key);
        if (found) return found;
      }
    }
    const entity = this.entityOf(key);
    return (
      (await this.findIn(entity, key, hint)) ??
      // A raised link's adjustment is a charge invoice (a lowered one's the credit memo).
      (keyPrefix(baseKey(key)) === 'invoice-adjustment' ? await this.findIn('Invoice', key, hint) : null) ??
      (entity === 'JournalEntry' ? null : this.findIn('JournalEntry', key))
    );
  }

  private async findIn(entity: string, key: string, hint?: TargetDocument): Promise<RemoteRecord | null> {
    const record = await this.lookup(entity, key, hint);
    const mark = record && markersIn(record.PrivateNote).find((m) => m.key === key);
    if (!record || !mark) return null;
    const found = { key, remoteIds: [`${entity}:${record.Id}`], contentHash: mark.contentHash };
    this.known.set(key, found);
    return found;
  }

  async close(): Promise<void> {}

  private entityOf(key: string): string {
    return entityByKind[keyPrefix(baseKey(key))] ?? 'JournalEntry';
  }

  /**
   * The filter that narrows `entity`'s rows to the few that may carry this key (filterable properties only),
   * from the document when there is one; null when only a scan can tell (an invoice, a bill, a payment or a
   * deposit known by its key alone).
   */
  private filterFor(entity: string, key: string, hint?: TargetDocument): Filter | null {
    const kind = keyPrefix(baseKey(key));
    const doc = hint?.key === key ? hint : undefined;
    // A reversal's own document (a charge invoice or bill after close) is numbered with its key's tag.
    if (isReversalKey(key)) return { DocNumber: docNumberTag(key) };
    if (entity === 'Invoice' && kind === 'invoice') {
      if (!doc) return null;
      const name = this.invoiceName(doc);
      return { DocNumber: [invoiceNumber(name), this.distinctNumber(doc, name)] };
    }
    if (entity === 'Bill') return doc ? { DocNumber: billNumber(doc) } : null;
    // A bill payment by check is numbered with the check's number (issue 30 item 7), an older one or one
    // without a check number with the key's tag: both asked; with the key alone, the tag then a scan (lookup).
    if (entity === 'BillPayment') {
      if (!doc) return null;
      const number = billPaymentNumber(doc);
      const tag = docNumberTag(key);
      return { DocNumber: number === tag ? tag : [number, tag] };
    }
    if (byDate.has(entity)) return doc ? { TxnDate: doc.date } : null;
    return { DocNumber: docNumberTag(key) };
  }

  /** The record of `entity` carrying this key's marker: through its filter, else the rows newest first. */
  private async lookup(entity: string, key: string, hint?: TargetDocument): Promise<QboEntity | null> {
    // A document dated out of a closed period may have been created on its own date before the books closed.
    const own = this.ownDates.get(key);
    if (own && hint?.key === key && byDate.has(entity) && own !== hint.date) {
      const found = await this.lookup(entity, key, { ...hint, date: own });
      if (found) return found;
    }
    const filter = this.filterFor(entity, key, hint);
    if (!filter && entity === 'BillPayment') {
      // With the key alone: its tag first (a bill payment without a check number, or pushed before them),
      // then the scan, for one numbered with its check.
      const tagged = await this.client.select(entity, { DocNumber: docNumberTag(key) });
      const found = rowOf(tagged, key);
      if (found) return found;
    }
    const rows = await this.client.selectPages(
      entity,
      filter ?? {},
      filter ? undefined : 'MetaData.CreateTime DESC',
      (read) => rowOf(read, key) !== null,
    );
    return rowOf(rows, key);
  }

  /** lookup()'s first page, for a batch; null for a document only a scan finds (then looked up alone). */
  private lookupQuery(entity: string, doc: TargetDocument): BatchItem | null {
    if (byDate.has(entity) && this.ownDates.has(doc.key)) return null;
    const filter = this.filterFor(entity, doc.key, doc);
    return filter ? { entity, query: selectQuery(entity, filter, { max: PAGE_SIZE }) } : null;
  }

  /**
   * A backlog in batches: the documents' keys looked up 30 to a request, then what is missing created 30 to
   * a request, in waves, where a document that needs one created in the same wave (a payment and its
   * invoice) waits for the next. As push(): looked up before created, so a crash after a batch create and
   * before the index write finds the records on the next run; the batch's requestid replays a lost answer.
   * Reversals go one by one through push().
   */
  readonly batches = true;

  /** QuickBooks' limits are waited out by the limiter: nothing to say before a push stops. */
  warning(): string | null {
    return null;
  }

  async pushMany(given: TargetDocument[], context: PushContext): Promise<(PushResult | Error)[]> {
    const outcomes: (PushResult | Error | undefined)[] = new Array(given.length);
    try {
      // Dated out of the closed period (reversals decide for themselves, in push()).
      const lock = await this.lock(context);
      const documents = given.map((d) => (d.kind === 'reversal' ? d : this.open(d, lock)));
      await this.lookUpAll(
        documents.filter((d) => context.mayExist(d.key)),
        documents,
        outcomes,
      );
      for (const [i, doc] of documents.entries()) {
        const found = outcomes[i];
        if (found) outcomes[i] = await this.withTransfer(doc, found, context);
      }
      await this.prefetch(documents, outcomes);
      await this.createInWaves(documents, outcomes, context);
      // Lowered invoices' credit memos applied to their invoices, once the slice's invoices exist.
      for (const [i, doc] of documents.entries()) {
        const outcome = outcomes[i];
        if (doc.kind === 'invoice-adjustment' && outcome && !(outcome instanceof Error)) {
          // Not applied (an outage, a refusal): the document is not settled, its retry finds the memo and
          // applies it then.
          try {
            outcomes[i] = await this.applied(doc, outcome, context);
          } catch (error) {
            outcomes[i] = asError(error);
            if (!isTargetRefusal(error)) throw error;
          }
        }
      }
    } catch (error) {
      // An outage, a throttle, a lost connection: what is not settled yet waits for the retry, in order
      // (a payment planned without its invoice would become a journal entry).
      const cause = asError(error);
      for (let i = 0; i < outcomes.length; i++) outcomes[i] ??= cause;
    }
    return outcomes.map((o) => o ?? new Error('not pushed'));
  }

  /** Looks up the documents an earlier attempt may have created (`candidates`), settling those found. */
  private async lookUpAll(
    candidates: TargetDocument[],
    documents: TargetDocument[],
    outcomes: (PushResult | Error | undefined)[],
  ) {
    const wanted = new Set(candidates);
    const looked = documents.flatMap((doc, i) =>
      doc.kind === 'reversal' || !wanted.has(doc) ? [] : [{ doc, i }],
    );
    for (let start = 0; start < looked.length; start += BATCH_LIMIT) {
      const chunk = looked.slice(start, start + BATCH_LIMIT);
      const queries = chunk.map(({ doc }) => this.lookupQuery(this.entityOf(doc.key), doc));
      const items = queries.filter((q): q is BatchItem => q !== null);
      // A fresh requestid: a replayed read would answer with what QBO held the first time.
      const answers = items.length > 0 ? await this.client.batch(items, randomUUID()) : [];
      let next = 0;
      for (const [j, { doc, i }] of chunk.entries()) {
        const entity = this.entityOf(doc.key);
        let found: RemoteRecord | null = null;
        const answer = queries[j] ? answers[next++] : undefined;
        if (answer instanceof Error) throw answer;
        const rows = (answer as QboEntity[] | undefined) ?? [];
        const record = rowOf(rows, doc.key);
        const mark = record && markersIn(record.PrivateNote).find((m) => m.key === doc.key);
        if (record && mark) {
          found = { key: doc.key, remoteIds: [`${entity}:${record.Id}`], contentHash: mark.contentHash };
          this.known.set(doc.key, found);
        } else if (!queries[j] || rows.length >= PAGE_SIZE) {
          // Not narrowed to one page: looked up alone, page by page.
          found = await this.findIn(entity, doc.key, doc);
        }
        if (found) outcomes[i] = foundOrConflict(this.name, found, doc);
      }
    }
  }

  /**
   * What the backlog's documents will ask QBO for, asked in a few requests instead of one or four per
   * document: its parties (PartyDirectory.prefetch) and the numbers its invoices may take (numberInvoice).
   */
  private async prefetch(documents: TargetDocument[], outcomes: (PushResult | Error | undefined)[]) {
    const open = documents.filter((d, i) => !outcomes[i] && d.kind !== 'reversal');
    await this.parties.prefetch(
      'Customer',
      open.flatMap((d) => (d.customer ? [d.customer] : [])),
    );
    await this.parties.prefetch(
      'Vendor',
      open.flatMap((d) => (d.vendor ? [d.vendor] : [])),
    );
    const numbers = [
      ...new Set(
        open
          .filter((d) => d.kind === 'invoice')
          .flatMap((d) => {
            const name = this.invoiceName(d);
            return [invoiceNumber(name), this.distinctNumber(d, name)];
          }),
      ),
    ];
    if (numbers.length === 0) return;
    const chunks: string[][] = [];
    for (let i = 0; i < numbers.length; i += NUMBERS_PER_QUERY)
      chunks.push(numbers.slice(i, i + NUMBERS_PER_QUERY));
    const taken = new Map<string, QboEntity[]>(numbers.map((n) => [n, []]));
    for (let i = 0; i < chunks.length; i += BATCH_LIMIT) {
      const items = chunks.slice(i, i + BATCH_LIMIT).map((chunk) => ({
        entity: 'Invoice',
        query: selectQuery('Invoice', { DocNumber: chunk }, { max: PAGE_SIZE }),
      }));
      for (const answer of await this.client.batch(items, randomUUID())) {
        if (answer instanceof Error) throw answer;
        for (const invoice of answer as QboEntity[]) taken.get(String(invoice.DocNumber))?.push(invoice);
      }
    }
    this.numbers = taken;
  }

  private async createInWaves(
    documents: TargetDocument[],
    outcomes: (PushResult | Error | undefined)[],
    context: PushContext,
  ) {
    const wave: { i: number; doc: TargetDocument; entity: string; body: Record<string, unknown> }[] = [];
    const waves = new PushWaves(outcomes, context);
    const flush = async () => {
      if (wave.length === 0) return;
      const items: BatchItem[] = wave.map((w) => ({ entity: w.entity, body: w.body }));
      const ids = wave.map((w) => createRequestId(w.doc.key, w.body, context.refusals(w.doc.key)));
      const answers = await this.client.batch(items, batchRequestId(ids));
      for (const [j, w] of wave.entries()) {
        const answer = answers[j] as QboEntity | Error;
        if (answer instanceof Error) {
          if (!isTargetRefusal(answer)) throw answer;
          outcomes[w.i] = answer;
          continue;
        }
        this.remember(w.entity, answer);
        this.known.set(w.doc.key, {
          key: w.doc.key,
          remoteIds: [`${w.entity}:${answer.Id}`],
          contentHash: w.doc.contentHash,
        });
        const stored = markersIn(answer.PrivateNote).find((m) => m.key === w.doc.key);
        const result: PushResult = {
          key: w.doc.key,
          remoteIds: [`${w.entity}:${answer.Id}`],
          contentHash: w.doc.contentHash,
          created: true,
        };
        const outcome =
          stored && stored.contentHash !== w.doc.contentHash
            ? new TargetConflictError(this.name, w.doc.key, stored.contentHash, w.doc.contentHash)
            : await this.withTransfer(w.doc, result, context);
        waves.settle(w.i, w.doc.key, outcome, outcome instanceof Error ? result : outcome);
      }
      this.options.logger?.info({ documents: wave.length }, 'pushed a batch to quickbooks');
      wave.length = 0;
      waves.created();
      // Numbers read before this wave may be taken now.
      this.numbers = null;
    };
    // Rounds: a document that needs one still in the wave (or deferred) waits for the next round, so an
    // invoice and its payment cost two batches for the whole backlog, not two per pair.
    await waves.run(documents, {
      reverse: (doc) => this.push(doc, waves.context),
      create: flush,
      place: async (doc, i) => {
        const plan = await this.plan(doc, waves.context);
        if ('found' in plan) return this.withTransfer(doc, plan.found, waves.context);
        if (
          plan.entity === 'Invoice' &&
          wave.some((w) => w.entity === 'Invoice' && w.body.DocNumber === plan.body.DocNumber)
        ) {
          // Two links of one name: the second is numbered once the first exists.
          return 'deferred';
        }
        if (
          plan.entity !== this.entityOf(doc.key) &&
          waves.context.mayExist(doc.key) &&
          (await this.findIn(plan.entity, doc.key, doc))
        )
          return refusalOrThrow(() => this.push(doc, waves.context));
        wave.push({ i, doc, entity: plan.entity, body: plan.body });
        waves.queue(doc.key);
        if (wave.length === BATCH_LIMIT) await flush();
        return 'queued';
      },
    });
  }

  /**
   * The remote record of an earlier document: the push's index first, QBO itself otherwise, narrowed by
   * what `doc` (the later document) says of it: a payment names its invoice's number, a bill payment its
   * bill's.
   */
  private async earlier(
    key: string,
    context: PushContext,
    doc?: TargetDocument,
  ): Promise<{ entity: string; id: string } | null> {
    // Only a number carries over (a payment names its invoice's): the later document's date is its own.
    const numbered = ['Invoice', 'Bill'].includes(this.entityOf(key));
    const hint: TargetDocument | undefined = doc && numbered ? { ...doc, key } : undefined;
    const record = context.pushed(key) ?? (await this.locate(key, hint));
    return parseRemoteId(record?.remoteIds[0]);
  }

  /**
   * The invoices money received on a link is applied to, as the document's split says (the link's invoice,
   * then its memos' and reopened amounts' charge invoices, oldest first; applications.ts): each one QuickBooks
   * holds as an Invoice gets its part, the rest stays unapplied (the customer's credit). With no split, the
   * whole on the link's invoice.
   */
  private async applications(
    doc: TargetDocument,
    invoiceId: string,
    cents: number,
    context: PushContext,
  ): Promise<{ invoiceId: string; cents: number }[]> {
    if (!doc.settles) return [{ invoiceId, cents }];
    const applied: { invoiceId: string; cents: number }[] = [];
    for (const part of doc.settles.applied) {
      const record =
        part.key === `invoice:${doc.invoice?.paymentLinkId}`
          ? { entity: 'Invoice', id: invoiceId }
          : await this.earlier(part.key, context);
      if (record?.entity === 'Invoice') applied.push({ invoiceId: record.id, cents: part.amountCents });
    }
    return applied;
  }

  /** The name an invoice is numbered by: the link's name (`#<version>` once booked again) or the key's tag. */
  private invoiceName(doc: TargetDocument): string {
    const name = doc.invoice?.number ?? docNumberTag(doc.key);
    const version = keyVersion(doc.key);
    return version > 1 ? `${name}#${version}` : name;
  }

  /** An invoice's number when its name is taken by booksync's invoice for another link. */
  private distinctNumber(doc: TargetDocument, name: string): string {
    return `${name.slice(0, 16)}-${docNumberTag(doc.key).slice(-4)}`;
  }

  private async plan(doc: TargetDocument, context: PushContext): Promise<Plan | { found: PushResult }> {
    const pair = pairOf(doc.lines);
    switch (doc.kind) {
      case 'invoice': {
        // A link booked again after its reversal (`invoice:pl#2`) is a new invoice beside the voided one.
        const numbered = await this.numberInvoice(doc, this.invoiceName(doc));
        if ('found' in numbered) return numbered;
        return (await this.mapper.invoice(doc, numbered.number)) ?? this.mapper.journal(doc);
      }
      // A charge invoice of its own: the original may be paid already, and only an invoice's Balance says
      // what the customer owes (a journal's A/R line is in the aging, not in any invoice).
      case 'debit-memo':
      case 'refund-reopen':
        return (await this.mapper.invoice(doc, docNumberTag(doc.key))) ?? this.mapper.journal(doc);
      case 'payment':
      case 'external-payment':
      case 'check-application': {
        if (pair?.credit !== 'AccountsReceivable' || !doc.invoice) return this.mapper.journal(doc);
        const invoice = await this.earlier(`invoice:${doc.invoice.paymentLinkId}`, context, doc);
        if (invoice?.entity !== 'Invoice') return this.mapper.journal(doc);
        if (pair.debit === 'UnappliedCash') {
          // A deposited check's credit applied (Dr Unapplied Cash, a liability): a Payment deposits only into
          // an asset account (Finance.xsd, DepositToAccountRef), so the Payment takes the money from Checks To
          // Deposit, where the check is, and applies it to the invoice (its Balance drops, as the service's
          // remainder); applied() then moves the credit out of Unapplied Cash by a journal. An earlier
          // release's whole journal (Dr Unapplied Cash / Cr A/R) is found there, never applied twice.
          const journal = context.mayExist(doc.key) ? await this.findIn('JournalEntry', doc.key) : null;
          if (journal) return { found: alreadyPushed(this.name, journal, doc) };
        }
        return this.mapper.payment(
          doc,
          pair.debit === 'UnappliedCash' ? { ...pair, debit: 'ChecksToDeposit' } : pair,
          await this.applications(doc, invoice.id, pair.cents, context),
          await this.customerOf(invoice.id),
        );
      }
      // A raised link: a charge invoice of its own, as a debit memo (the original may be paid already, and only
      // an invoice's Balance says what the customer owes); one an earlier release pushed as a journal entry
      // is found there, never charged twice.
      // A lowered link: a credit memo for the invoice's customer, applied to the invoice once made (applied()).
      // No invoice in QBO to apply it to (booked as a journal entry): the journal entry, as before.
      case 'invoice-adjustment': {
        if (pair?.debit === 'AccountsReceivable' && doc.invoice) {
          const journal = context.mayExist(doc.key) ? await this.findIn('JournalEntry', doc.key) : null;
          if (journal) return { found: alreadyPushed(this.name, journal, doc) };
          return (await this.mapper.invoice(doc, docNumberTag(doc.key))) ?? this.mapper.journal(doc);
        }
        if (pair?.credit !== 'AccountsReceivable' || !doc.invoice) return this.mapper.journal(doc);
        const invoice = await this.earlier(`invoice:${doc.invoice.paymentLinkId}`, context, doc);
        if (invoice?.entity !== 'Invoice') return this.mapper.journal(doc);
        // Pushed by an earlier release as a journal entry (an attempt that may have created it): found
        // there, never credited twice.
        const journal = context.mayExist(doc.key) ? await this.findIn('JournalEntry', doc.key) : null;
        if (journal) return { found: alreadyPushed(this.name, journal, doc) };
        return this.mapper.creditMemo(doc, pair, await this.customerOf(invoice.id));
      }
      // A sale of its own (no invoice to pay): a sales receipt, for the customer when there is one.
      case 'sale': {
        if (!pair) return this.mapper.journal(doc);
        const customer = doc.customer ? await this.parties.ref('Customer', doc.customer) : null;
        return this.mapper.salesReceipt(doc, pair, customer);
      }
      case 'refund': {
        if (!pair) return this.mapper.journal(doc);
        const invoice = doc.invoice
          ? await this.earlier(`invoice:${doc.invoice.paymentLinkId}`, context, doc)
          : null;
        const customer =
          invoice?.entity === 'Invoice'
            ? await this.customerOf(invoice.id)
            : doc.customer
              ? await this.parties.ref('Customer', doc.customer)
              : null;
        return customer ? this.mapper.refund(doc, pair, customer) : this.mapper.journal(doc);
      }
      case 'disbursement-pending':
        if (pair && doc.payout)
          return this.mapper.payoutDeposit(doc, pair, await this.receiptsIn(doc, context));
        return pair ? this.mapper.deposit(doc, pair) : this.mapper.journal(doc);
      case 'disbursement-paid':
      case 'check-cleared':
      // The check deposited: a Deposit into Checks To Deposit from Unapplied Cash.
      case 'check-deposited':
        return pair ? this.mapper.deposit(doc, pair) : this.mapper.journal(doc);
      case 'bill': {
        if (pair?.credit !== 'AccountsPayable') return this.mapper.journal(doc);
        if (!doc.vendor) throw new TargetRefusedError(this.name, `bill ${doc.key} has no vendor`);
        return this.mapper.bill(doc, pair, doc.vendor);
      }
      case 'bill-payment-sent': {
        if (pair?.debit !== 'AccountsPayable' || !doc.bill) return this.mapper.journal(doc);
        const bill = await this.earlier(`bill:${doc.bill.billId}`, context, doc);
        if (bill?.entity !== 'Bill') return this.mapper.journal(doc);
        const read = await this.client.read('Bill', bill.id);
        return this.mapper.billPayment(doc, pair, bill.id, read.VendorRef as Ref);
      }
      default:
        return this.mapper.journal(doc);
    }
  }

  /**
   * The payments and sales receipts at QBO of a payout's receipts: from the push's index, else found by their
   * key on their own date. A receipt booked as a journal entry (or not in QBO) is not linked: its money stays
   * in the deposit's line on the clearing account.
   */
  private async receiptsIn(doc: TargetDocument, context: PushContext): Promise<LinkedReceipt[]> {
    const linked: LinkedReceipt[] = [];
    for (const receipt of doc.payout?.receipts ?? []) {
      const hint: TargetDocument = { ...doc, key: receipt.key, date: receipt.date, kind: 'payment' };
      const record = context.pushed(receipt.key) ?? (await this.locate(receipt.key, hint));
      const found = parseRemoteId(record?.remoteIds[0]);
      if (found?.entity === 'Payment' || found?.entity === 'SalesReceipt') {
        linked.push({ txnId: found.id, txnType: found.entity, amountCents: receipt.amountCents });
      }
    }
    return linked;
  }

  /** The invoice's own customer, so a payment is never applied under a customer guessed again. */
  private async customerOf(invoiceId: string): Promise<Ref> {
    const known = this.invoiceCustomers.get(invoiceId);
    if (known) return known;
    const invoice = await this.client.read('Invoice', invoiceId);
    this.remember('Invoice', invoice);
    return invoice.CustomerRef as Ref;
  }

  /** An invoice's customer never changes once booksync made it: kept, so its payments need no read. */
  private remember(entity: string, record: QboEntity) {
    if (entity === 'Invoice' && record.CustomerRef) {
      this.invoiceCustomers.set(record.Id, record.CustomerRef as Ref);
    }
  }

  /**
   * The invoice's number in QBO. Free: the link's name. Taken by an invoice booksync made for another link (a
   * name used again, e.g. each demo day's INV-1001): the name with a digest of this key, so both stay
   * findable and neither is guessed. Taken by an invoice keyed in QBO: adopted under 'match-existing' (the
   * marker added by a sparse update), refused under 'create'.
   */
  private async numberInvoice(
    doc: TargetDocument,
    name: string,
  ): Promise<{ number: string } | { found: PushResult }> {
    const holding = async (docNumber: string) =>
      this.numbers?.get(docNumber) ?? (await this.client.select('Invoice', { DocNumber: docNumber }));
    const number = invoiceNumber(name);
    const [existing] = await holding(number);
    if (!existing) return { number };
    if (markersIn(existing.PrivateNote).length > 0) {
      const distinct = this.distinctNumber(doc, name);
      const [taken] = await holding(distinct);
      if (!taken) return { number: distinct };
      throw new TargetRefusedError(
        this.name,
        `invoice numbers ${number} and ${distinct} are both taken in QuickBooks (Ids ${existing.Id}, ${taken.Id})`,
      );
    }
    if (this.options.matching !== 'match-existing') {
      throw new TargetRefusedError(
        this.name,
        `invoice number ${number} already exists in QuickBooks (Id ${existing.Id}); matching policy 'create' does not adopt it`,
      );
    }
    const mark = marker(doc.key, doc.contentHash);
    const updated = await this.withFreshSyncToken(
      'Invoice',
      existing.Id,
      (current) => ({
        Id: current.Id,
        SyncToken: current.SyncToken,
        sparse: true,
        PrivateNote:
          typeof current.PrivateNote === 'string' && current.PrivateNote
            ? `${mark}\n${current.PrivateNote}`
            : mark,
      }),
      { operation: 'update' },
      doc.key,
    );
    return {
      found: {
        key: doc.key,
        remoteIds: [`Invoice:${updated.Id}`],
        contentHash: doc.contentHash,
        created: false,
      },
    };
  }

  /**
   * A reversal in the same open month as its original: an invoice, payment or bill payment is voided as
   * Intuit documents it (a voided payment's invoice or bill is open again), then the reversal's marker is
   * added to its note. Across months or into a closed period the original is never touched: a payment's
   * reversal is a charge invoice (a bill payment's a bill) dated in the open period, anything else a reversing
   * journal entry. The original comes from the push's index, else QBO; a void already made (a crash before
   * the marker) is not made again, and a reversal made either way is found by its key.
   */
  private async reverse(
    given: TargetDocument,
    context: PushContext,
    lock: string | null,
  ): Promise<PushResult> {
    const result = await this.reverseOriginal(given, context, lock);
    return this.reversedTransfer(this.open(given, lock), result, context);
  }

  /**
   * An applied check's credit reversed (the check returned) by voiding its Payment: its Unapplied Cash
   * journal, if it has one, is reversed too (Dr Checks To Deposit / Cr Unapplied Cash, in the open period,
   * never edited), so the credit is back in Unapplied Cash as in the ledger. Reversed by a charge invoice
   * (after its month, into closed books) nothing more is needed: that invoice credits Unapplied Cash through
   * booksync's item of it, so the Payment, the journal and the invoice net to nothing. Found by its number
   * when it may exist: a crash between the void and the journal makes it on the next push, once.
   */
  private async reversedTransfer(
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
    const transfer = (pushed ? parseRemoteId(pushed[1])?.id : undefined) ?? (await this.transferOf(original));
    if (!transfer) return result;
    const journal = await this.client.read('JournalEntry', transfer);
    const line = (journal.Line as { Amount?: unknown }[] | undefined)?.[0];
    const cents = amountToCents(Number(line?.Amount ?? 0));
    const id = await this.transferJournal(doc, !result.created || context.mayExist(doc.key), context, () =>
      this.mapper.unappliedCashTransfer(
        doc,
        'ChecksToDeposit',
        'UnappliedCash',
        cents,
        `reverses journal ${transfer}: the check's credit back in Unapplied Cash`,
      ),
    );
    const remoteIds = [voided, `JournalEntry:${id}`];
    this.known.set(doc.key, { key: doc.key, remoteIds, contentHash: result.contentHash });
    return { ...result, remoteIds };
  }

  private async reverseOriginal(
    given: TargetDocument,
    context: PushContext,
    lock: string | null,
  ): Promise<PushResult> {
    const doc = this.open(given, lock);
    const original = doc.reverses ? await this.earlier(doc.reverses, context, doc) : null;
    if (!original) {
      const existing = await this.locate(doc.key);
      if (existing) return alreadyPushed(this.name, existing, doc);
      throw new TargetRefusedError(
        this.name,
        `nothing to reverse: ${doc.reverses ?? '(no key)'} is not in QuickBooks`,
      );
    }
    if (original.entity === 'CreditMemo') {
      // Never voided nor deleted (it may be applied, in a closed month): the customer owes it again by a
      // charge invoice of its own, dated in the open period.
      return this.reverseAfterClose(
        doc,
        'Invoice',
        await this.client.read('CreditMemo', original.id),
        context,
      );
    }
    if (voidable.has(original.entity)) {
      const remoteIds = [`void:${original.entity}:${original.id}`];
      const current = await this.client.read(original.entity, original.id);
      const mark = markersIn(current.PrivateNote).find((m) => m.key === doc.key);
      if (mark)
        return alreadyPushed(this.name, { key: doc.key, remoteIds, contentHash: mark.contentHash }, doc);
      if (reversesInPlace(given, lock, String(current.TxnDate ?? ''))) {
        try {
          return await this.voidInPlace(doc, original, current, remoteIds);
        } catch (error) {
          // A payment a payout deposited cannot be voided (QBO 6540, "Deposited Transaction cannot be
          // changed"): the deposit stands, and the payment is reversed by a document of its own.
          if (!isDepositedRefusal(error) || !reversingEntity[original.entity]) throw error;
        }
      }
      const reversing = reversingEntity[original.entity];
      if (reversing) return this.reverseAfterClose(doc, reversing, current, context);
    }
    const existing = context.mayExist(doc.key) ? await this.findIn('JournalEntry', doc.key) : null;
    if (existing) return alreadyPushed(this.name, existing, doc);
    const plan = await this.mapper.journal(
      doc,
      `reverses ${doc.reverses} (${original.entity} ${original.id})`,
    );
    return this.createReversal(doc, plan, context);
  }

  private async voidInPlace(
    doc: TargetDocument,
    original: { entity: string; id: string },
    current: QboEntity,
    remoteIds: string[],
  ): Promise<PushResult> {
    if (!isVoided(current)) {
      await this.withFreshSyncToken(
        original.entity,
        original.id,
        (record) => ({
          Id: record.Id,
          SyncToken: record.SyncToken,
          ...(original.entity === 'Invoice' ? {} : { sparse: true }),
        }),
        voidQuery[original.entity] ?? { operation: 'void' },
        doc.key,
        current,
      );
    }
    // QBO keeps no note sent with the void: the marker goes on by an update of the voided record.
    await this.withFreshSyncToken(
      original.entity,
      original.id,
      (record) => ({
        Id: record.Id,
        SyncToken: record.SyncToken,
        sparse: true,
        PrivateNote:
          `${typeof record.PrivateNote === 'string' ? record.PrivateNote : ''}\n${marker(doc.key, doc.contentHash)}`.trim(),
      }),
      { operation: 'update' },
      `${doc.key}:marker`,
    );
    const result = { key: doc.key, remoteIds, contentHash: doc.contentHash, created: true };
    this.known.set(doc.key, result);
    return result;
  }

  /**
   * A payment reversed after its month (or into a closed period): a charge invoice for the payment's customer,
   * dated in the open period, its line through booksync's item of the account the payment went into
   * (Undeposited Funds, Checks To Deposit...): Intuit's bounced-check invoice. A bill payment's: a bill for its
   * vendor on the account it was paid from. Numbered with the reversal key's tag, found by it.
   */
  private async reverseAfterClose(
    doc: TargetDocument,
    entity: string,
    paid: QboEntity,
    context: PushContext,
  ): Promise<PushResult> {
    const mayExist = context.mayExist(doc.key);
    const existing = mayExist ? await this.findIn(entity, doc.key, doc) : null;
    if (existing) return alreadyPushed(this.name, existing, doc);
    const pair = pairOf(doc.lines);
    const plan =
      entity === 'Invoice' && pair?.debit === 'AccountsReceivable'
        ? await this.mapper.invoice(doc, docNumberTag(doc.key), paid.CustomerRef as Ref)
        : entity === 'Bill' && pair?.credit === 'AccountsPayable'
          ? await this.mapper.bill(
              doc,
              pair,
              doc.vendor ?? null,
              paid.VendorRef as Ref,
              docNumberTag(doc.key),
            )
          : null;
    if (plan) return this.createReversal(doc, plan, context);
    const journal = mayExist ? await this.findIn('JournalEntry', doc.key) : null;
    if (journal) return alreadyPushed(this.name, journal, doc);
    return this.createReversal(
      doc,
      await this.mapper.journal(doc, `reverses ${doc.reverses} (${paid.Id})`),
      context,
    );
  }

  private async createReversal(doc: TargetDocument, plan: Plan, context: PushContext): Promise<PushResult> {
    const created = await this.client.write(plan.entity, plan.body, {
      requestid: createRequestId(doc.key, plan.body, context.refusals(doc.key)),
    });
    const result = {
      key: doc.key,
      remoteIds: [`${plan.entity}:${created.Id}`],
      contentHash: doc.contentHash,
      created: true,
    };
    this.known.set(doc.key, result);
    this.options.logger?.info(
      { key: doc.key, entity: plan.entity, id: created.Id },
      'reversal pushed to quickbooks',
    );
    return result;
  }

  /** Updates with the record's current SyncToken; a stale one (someone edited it meanwhile) is re-read and retried. */
  private async withFreshSyncToken(
    entity: string,
    id: string,
    body: (current: QboEntity) => Record<string, unknown>,
    operation: { operation: string; include?: string },
    key: string,
    read?: QboEntity,
  ): Promise<QboEntity> {
    const label = operation.include ? `${operation.operation}+${operation.include}` : operation.operation;
    for (let attempt = 1; ; attempt++) {
      const current = attempt === 1 && read ? read : await this.client.read(entity, id);
      try {
        // The requestid includes the SyncToken read: a replay after a lost answer is the same write, a
        // retry after a stale token is a new one.
        return await this.client.write(entity, body(current), {
          ...operation,
          requestid: requestIdFor(`${key}@${current.SyncToken}`, label),
        });
      } catch (error) {
        if (!isStaleObject(error) || attempt >= 3) throw error;
        this.options.logger?.info({ entity, id, attempt }, 'stale SyncToken, re-reading');
      }
    }
  }
}
