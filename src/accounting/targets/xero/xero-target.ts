import type { Logger } from 'pino';
import { baseKey, keyPrefix } from '../../entry-key.js';
import type { AccountMapping, AccountRole } from '../account-mapping.js';
import { alreadyPushed } from '../already-pushed.js';
import { datedOpen, LockReader, laterOf, reversesInPlace } from '../closed-periods.js';
import { amountToCents, centsToAmount } from '../decimal-amounts.js';
import { dueDateOf } from '../documents.js';
import {
  TargetConfigurationError,
  TargetConflictError,
  TargetDisconnectedError,
  TargetRefusedError,
  TargetUnavailableError,
} from '../errors.js';
import { marker } from '../markers.js';
import { companyLimiter, type RealmLimiter } from '../oauth/limiter.js';
import type { CompanyTokenStore } from '../oauth/token-store.js';
import { PushWaves, refusalOrThrow } from '../push-waves.js';
import { ownerNote, type TargetFigures, type TargetFiguresReader } from '../target-figures.js';
import type {
  AccountingTarget,
  Party,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../target-port.js';
import { AccountDirectory } from './accounts.js';
import { settled } from './allocations.js';
import { XeroClient } from './client.js';
import { ContactDirectory, type MatchingPolicy, processor, unnamedCustomer } from './contacts.js';
import type { XeroContext } from './context.js';
import { invoiceName, moneyMove, overpayment, payment, planDocument, taxed } from './documents.js';
import { cancel, create, read } from './entity-calls.js';
import { XeroFigures } from './figures.js';
import { invoicesNumbered } from './invoice-numbers.js';
import { numberTag } from './keys.js';
import { earlier, find, lookUpAll, lookupOne, marked, partsAt, reversingDocuments } from './look-ups.js';
import { type PaymentPart, partIn, partReference, partsOf } from './payment-parts.js';
import {
  type Body,
  dayOf,
  deletedStatuses,
  entitiesOf,
  idOf,
  LOOKUP_CHUNK,
  markerText,
  markOf,
  overpaidRefusal,
  type Plan,
  pairOf,
  parseRemoteId,
  salesPayments,
  type XeroEntity,
} from './records.js';
import { TaxTypeDirectory } from './tax-rates.js';

// Xero behind the accounting-target port (issue 14), on the official SDK (client.ts). Idempotency: every
// create carries an Idempotency-Key derived from the entry key and the body (Xero replays the first answer),
// and push() first looks the key up at Xero by the marker the record carries (keys.ts), so a crash between a
// create and the index write finds the record instead of making a second one. remoteIds are
// `<Entity>:<id>`; a reversal is the original's own status change, `deleted:<Entity>:<id>`.
//
// Xero's limits (60 calls a minute, 5 at once, 5,000 in a rolling 24 hours per organisation) are held by the
// tenant's worker-wide limiter, which also follows Xero's own count in every answer's headers (client.ts); pushMany() looks a backlog up and creates it in batches (one call for many invoices,
// payments, bank transactions, credit notes or journals), so a busy day stays far inside 5,000 calls.

/**
 * Xero's limits per organisation; a second of margin on the minute (see LimiterOptions.marginMs). The day is a
 * rolling 24 hours, not a UTC day (developer.xero.com/documentation/guides/oauth2/limits; XeroAPI/xero-node#262).
 */
export const XERO_LIMITS = {
  perMinute: 60,
  concurrent: 5,
  perDay: 5_000,
  dayWindowMs: 86_400_000,
  warnAt: 0.8,
  marginMs: 1_000,
} as const;

/** How many documents one create request carries. */
const CREATE_CHUNK = 50;

export interface XeroTargetOptions {
  baseUrl: string;
  tenantId: string;
  tokenStore: CompanyTokenStore;
  accounts: AccountMapping;
  matching: MatchingPolicy;
  logger?: Logger;
  /** Defaults to the worker-wide limiter of the tenant. */
  limiter?: RealmLimiter;
  /** How long the lock dates read from Xero are trusted (60 s; a lock-date refusal reads them again). */
  lockTtlMs?: number;
  /** The TaxType on booksync's lines (XERO_TAX_TYPE); unset: the organisation's no-tax rate (tax-rates.ts). */
  taxType?: string;
}

/** Xero's refusal of a document dated on or before a lock date. */
const LOCKED = /cannot be before the (period|end of year) lock date/i;

/** The tenant's worker-wide limiter: Xero's 60 a minute, 5 at once, 5,000 in a rolling 24 hours. */
export function xeroLimiter(tenantId: string, logger?: Logger): RealmLimiter {
  return companyLimiter('xero', tenantId, {
    ...XERO_LIMITS,
    // Xero counts every caller of the organisation in its minute; this worker's limiter sees only its own.
    // Ten calls a minute are left to the others: `booksync targets connect xero` verifying the connection
    // from its own process, and a restarted worker whose predecessor's calls still count (CI saw the connect
    // command's calls take Xero's minute past 60 beside a busy worker).
    perMinute: XERO_LIMITS.perMinute - 10,
    onNearingDailyCap: (usage) =>
      logger?.warn(
        { ...usage, flag: 'xero-daily-limit' },
        'Xero daily call limit nearly spent: once it is, pushes wait until calls of the last 24 h leave Xero’s window',
      ),
  });
}

export class XeroTarget implements AccountingTarget, TargetFiguresReader {
  readonly name = 'xero';
  readonly client: XeroClient;
  private readonly ctx: XeroContext;

  constructor(private readonly options: XeroTargetOptions) {
    this.client = new XeroClient({
      baseUrl: options.baseUrl,
      tenantId: options.tenantId,
      tokens: options.tokenStore,
      limiter: options.limiter ?? xeroLimiter(options.tenantId, options.logger),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.ctx = {
      name: this.name,
      client: this.client,
      accounts: new AccountDirectory(this.client, options.accounts),
      taxTypes: new TaxTypeDirectory(this.client, options.taxType),
      contacts: new ContactDirectory(this.client, options.matching),
      matching: options.matching,
      locks: new LockReader(() => this.readLockDates(), options.lockTtlMs),
      logger: options.logger,
      numbers: null,
    };
  }

  /**
   * The later of the Organisation's PeriodLockDate (all users but advisers) and EndOfYearLockDate (everyone):
   * booksync keeps out of both, whatever the role the connection was made with.
   */
  async lockedThrough(): Promise<string | null> {
    return this.ctx.locks.get();
  }

  private async readLockDates(): Promise<string | null> {
    const answer = await this.client.call('getOrganisations', (api, t) => api.getOrganisations(t));
    const org = (answer.organisations?.[0] ?? {}) as Body;
    return laterOf(dayOf(org.periodLockDate), dayOf(org.endOfYearLockDate));
  }

  /** The effective lock: the later of Xero's lock dates and the ledger's closed-through day. */
  private async lock(context: PushContext): Promise<string | null> {
    return laterOf(await this.ctx.locks.get(), context.closedThrough);
  }

  async verify(): Promise<void> {
    let problems: string[];
    try {
      problems = [...(await this.ctx.accounts.problems()), ...(await this.ctx.taxTypes.problems())];
    } catch (error) {
      // Down or disconnected is not a configuration problem: the worker starts and the push waits for it.
      if (error instanceof TargetUnavailableError || error instanceof TargetDisconnectedError) throw error;
      problems = [`cannot reach Xero organisation ${this.options.tenantId}: ${(error as Error).message}`];
    }
    if (problems.length > 0) throw new TargetConfigurationError(this.name, problems);
  }

  async close(): Promise<void> {}

  /**
   * Xero's own figures as of the end of `day` (figures.ts): its TrialBalance per mapped account, and its aged
   * receivables / payables by contact per link and bill, read from Xero, not from the push index.
   */
  async figuresAsOf(day: string): Promise<TargetFigures> {
    return new XeroFigures(this.client, this.ctx.accounts).asOf(day);
  }

  /** Today's calls against Xero's daily limit, and whether it is nearly spent (flagged at 80 %). */
  dailyUsage() {
    const usage = this.client.limiter.dailyUsage();
    return usage && { ...usage, nearingLimit: this.client.limiter.nearingDailyCap() };
  }

  /** Flags the push workflow before Xero's daily limit stops the pushes, not after. */
  warning(): string | null {
    const usage = this.dailyUsage();
    if (!usage?.nearingLimit) return null;
    return `Xero daily call limit nearly spent: ${usage.used} of ${usage.limit} calls in ${usage.day} (Xero's count when higher than ours); once spent, pushes wait until calls leave Xero's rolling 24 hours`;
  }

  async push(document: TargetDocument, context: PushContext): Promise<PushResult> {
    try {
      return await this.pushOpen(document, context);
    } catch (error) {
      // A lock date set since it was read: read it again and date the document after it.
      if (!(error instanceof TargetRefusedError && LOCKED.test(error.targetMessage))) throw error;
      this.ctx.locks.forget();
      return this.pushOpen(document, context);
    }
  }

  private async pushOpen(given: TargetDocument, context: PushContext): Promise<PushResult> {
    const lock = await this.lock(context);
    if (given.kind === 'reversal') return this.reverse(given, context, lock);
    const document = datedOpen(given, lock);
    const parts = this.splitOf(document);
    if (parts) return this.pushParts(document, parts, context);
    const entities = entitiesOf(document.key);
    const primary = entities[0] as XeroEntity;
    // Looked up only when an earlier attempt may have created it (PushContext.mayExist).
    const mayExist = context.mayExist(document.key);
    const existing = mayExist ? await lookupOne(this.ctx, primary, document) : null;
    if (existing) return settled(this.ctx, document, alreadyPushed(this.name, existing, document), context);
    const plan = await planDocument(this.ctx, document, context);
    if ('found' in plan) return plan.found;
    if (mayExist && plan.entity !== primary) {
      const fallback = await lookupOne(this.ctx, plan.entity, document);
      if (fallback) return alreadyPushed(this.name, fallback, document);
    }
    const [outcome] = await create(this.ctx, plan.entity, [{ doc: document, body: plan.body }], context);
    if (plan.entity === 'Payment' && overpaidRefusal(document, outcome))
      return this.pushAsCredit(document, context);
    if (outcome instanceof Error) throw outcome;
    return settled(this.ctx, document, outcome as PushResult, context);
  }

  /**
   * A payment the invoice cannot take (more than its AmountDue, e.g. a link's debit memo paid with its own
   * amount, or a payment after a refund reopened the link, when the invoice is PAID): the customer's credit,
   * a RECEIVE-OVERPAYMENT bank transaction, so the money and the receivable still match the ledger.
   */
  private async pushAsCredit(doc: TargetDocument, context: PushContext): Promise<PushResult> {
    const existing = context.mayExist(doc.key) ? await lookupOne(this.ctx, 'BankTransaction', doc) : null;
    if (existing) return alreadyPushed(this.name, existing, doc);
    const plan = await planDocument(this.ctx, doc, context, true);
    if ('found' in plan) return plan.found;
    const [outcome] = await create(this.ctx, plan.entity, [{ doc, body: plan.body }], context);
    if (outcome instanceof Error) throw outcome;
    return outcome as PushResult;
  }

  /** The parts of money that settles several documents (payment-parts.ts); null for one record. */
  private splitOf(doc: TargetDocument): PaymentPart[] | null {
    if (!salesPayments.has(doc.kind) || pairOf(doc.lines)?.credit !== 'AccountsReceivable') return null;
    const parts = partsOf(doc);
    return parts && parts.length > 1 ? parts : null;
  }

  /**
   * Money that settles several of the link's documents: one Payment per document for its part, and the
   * customer's credit (RECEIVE-OVERPAYMENT) for what exceeds them (payment-parts.ts). Every invoice is
   * resolved before anything is created (one still in a batch's wave defers the whole document); when an
   * earlier attempt may have created some parts, they are found by the document's key and only the missing
   * ones are created. remoteIds: one per part, in the parts' order.
   */
  private async pushParts(
    doc: TargetDocument,
    parts: PaymentPart[],
    context: PushContext,
  ): Promise<PushResult> {
    const account = pairOf(doc.lines)?.debit as AccountRole;
    const mark = marker(doc.key, doc.contentHash);
    // Every invoice first: one still in a batch's wave defers the document before any part is created.
    const invoices = new Map<string, string>();
    for (const part of parts) {
      if (part.settles === null) continue;
      const invoice = await earlier(this.ctx, part.settles, context);
      if (invoice?.entity !== 'Invoice' || !(await this.ctx.accounts.takesPayments(account)))
        throw new TargetRefusedError(
          this.name,
          `${doc.key}: no Xero invoice of ${part.settles} to apply ${centsToAmount(part.cents)} to from ${account}`,
        );
      invoices.set(part.tag, invoice.id);
    }
    const have = new Map<string, string>();
    if (context.mayExist(doc.key)) {
      for (const found of (await partsAt(this.ctx, doc.key)).filter((p) => !p.deleted)) {
        if (found.contentHash !== doc.contentHash)
          throw new TargetConflictError(this.name, doc.key, found.contentHash, doc.contentHash);
        if (found.tag) have.set(found.tag, found.remoteId);
      }
    }
    // A part its invoice at Xero cannot take (less owed there than in the ledger: a payment reversed after
    // close leaves the invoice paid and the amount owed again on an invoice of its own) is applied up to the
    // invoice's AmountDue, the rest the customer's credit, as a payment of one invoice is (pushAsCredit).
    const final: PaymentPart[] = [];
    let shortfall = 0;
    for (const part of parts) {
      const id = invoices.get(part.tag);
      if (!id || have.has(part.tag)) {
        final.push(part);
        continue;
      }
      const invoice = await read(this.ctx, 'Invoice', id);
      const due = invoice?.status === 'AUTHORISED' ? amountToCents(Number(invoice.amountDue ?? 0)) : 0;
      const cents = Math.min(part.cents, due);
      shortfall += part.cents - cents;
      if (cents > 0) final.push({ ...part, cents });
    }
    if (shortfall > 0) {
      const credit = final.find((p) => p.settles === null);
      if (credit && !have.has(credit.tag)) credit.cents += shortfall;
      else if (!credit) final.push({ tag: 'credit', settles: null, cents: shortfall });
      this.options.logger?.info(
        { key: doc.key, shortfall },
        "part of the money is the customer's credit in xero",
      );
    }
    const planned: { part: PaymentPart; plan: Plan }[] = [];
    for (const part of final) {
      const id = invoices.get(part.tag);
      if (id) {
        planned.push({ part, plan: payment(this.ctx, doc, id, account, part) });
        continue;
      }
      if (!(await this.ctx.accounts.isBank(account)))
        throw new TargetRefusedError(
          this.name,
          `${doc.key}: ${account} is not a bank account for the customer's credit`,
        );
      planned.push({
        part,
        plan: await overpayment(this.ctx, doc, account, part.cents, partReference(mark, part)),
      });
    }
    const missing = planned.filter((p) => !have.has(p.part.tag));
    const refusals: Error[] = [];
    for (const entity of ['Payment', 'BankTransaction'] as const) {
      const items = missing.filter((p) => p.plan.entity === entity);
      if (items.length === 0) continue;
      const bodies = await Promise.all(items.map(async (p) => (await taxed(this.ctx, p.plan)).body));
      const outcomes = await create(
        this.ctx,
        entity,
        bodies.map((body) => ({ doc, body })),
        context,
      );
      outcomes.forEach((outcome, j) => {
        if (outcome instanceof Error) refusals.push(outcome);
        else have.set((items[j] as { part: PaymentPart }).part.tag, outcome.remoteIds[0] as string);
      });
    }
    // A part refused: the others stay, found by the key when the push is retried.
    if (refusals[0]) throw refusals[0];
    return {
      key: doc.key,
      remoteIds: final.map((p) => have.get(p.tag) as string),
      contentHash: doc.contentHash,
      created: missing.length > 0,
    };
  }

  async find(key: string): Promise<RemoteRecord | null> {
    return find(this.ctx, key);
  }

  /**
   * A backlog in batches: looked up a few keys to a request per entity, then what is missing created up to
   * 50 to a request per entity, in waves, where a document that needs one created in the same wave (a payment
   * and its invoice) waits for the next. Reversals go one by one. As push(): looked up before created, and
   * each batch carries an Idempotency-Key derived from its documents, so a lost answer is replayed.
   */
  readonly batches = true;

  async pushMany(given: TargetDocument[], context: PushContext): Promise<(PushResult | Error)[]> {
    const outcomes: (PushResult | Error | undefined)[] = new Array(given.length);
    try {
      // Dated out of the closed period (reversals decide for themselves).
      const lock = await this.lock(context);
      const documents = given.map((d) => (d.kind === 'reversal' ? d : datedOpen(d, lock)));
      // Money in parts is looked up part by part when it is placed (pushParts).
      await lookUpAll(
        this.ctx,
        documents.map((d) => (context.mayExist(d.key) && !this.splitOf(d) ? d : null)),
        outcomes,
      );
      await this.prefetch(documents, outcomes);
      await this.createInWaves(documents, outcomes, context, lock);
      // Lowered invoices' credit notes allocated to their invoices, once the slice's invoices exist; payouts'
      // transfers noted with the receipts they carry.
      for (const [i, doc] of documents.entries()) {
        const outcome = outcomes[i];
        const after = doc.kind === 'invoice-adjustment' || doc.kind === 'disbursement-pending';
        if (after && outcome && !(outcome instanceof Error)) {
          outcomes[i] = await settled(this.ctx, doc, outcome, context).catch((error: unknown) =>
            error instanceof Error ? error : new Error(String(error)),
          );
        }
      }
    } catch (error) {
      // An outage, a throttle, a lost connection: what is not settled yet waits for the retry, in order.
      const cause = error instanceof Error ? error : new Error(String(error));
      for (let i = 0; i < outcomes.length; i++) outcomes[i] ??= cause;
    } finally {
      this.ctx.numbers = null;
    }
    this.flagDailyUsage();
    return outcomes.map((o) => o ?? new Error('not pushed'));
  }

  private flagDailyUsage() {
    const usage = this.dailyUsage();
    if (usage?.nearingLimit)
      this.options.logger?.warn({ ...usage, flag: 'xero-daily-limit' }, 'Xero daily call limit nearly spent');
  }

  // ---- finding keys ----

  /** The backlog's contacts and invoice numbers in a few requests, instead of one per document. */
  private async prefetch(documents: TargetDocument[], outcomes: (PushResult | Error | undefined)[]) {
    const open = documents.filter((_d, i) => !outcomes[i]);
    const parties = open.flatMap((d) => [d.customer, d.vendor].filter((p): p is Party => !!p));
    if (open.some((d) => d.kind === 'payment-fee')) parties.push(processor);
    if (open.some((d) => (d.invoice || d.kind === 'sale') && !d.customer)) parties.push(unnamedCustomer);
    if (parties.length > 0) await this.ctx.contacts.prefetch(parties);
    const names = [...new Set(open.filter((d) => d.kind === 'invoice').map((d) => invoiceName(d)))];
    if (names.length === 0) return;
    this.ctx.numbers = new Map(names.map((n) => [n, []]));
    for (let i = 0; i < names.length; i += LOOKUP_CHUNK) {
      const chunk = names.slice(i, i + LOOKUP_CHUNK);
      for (const invoice of await invoicesNumbered(this.ctx, chunk))
        this.ctx.numbers.get(String(invoice.invoiceNumber))?.push(invoice);
    }
  }

  // ---- creating ----

  private async createInWaves(
    documents: TargetDocument[],
    outcomes: (PushResult | Error | undefined)[],
    context: PushContext,
    lock: string | null,
  ) {
    const waves = new PushWaves(outcomes, context);
    const wave = new Map<XeroEntity, { i: number; doc: TargetDocument; body: Body }[]>();
    const flush = async () => {
      for (const [entity, items] of wave) {
        const size = entity === 'BankTransfer' ? 1 : CREATE_CHUNK;
        for (let start = 0; start < items.length; start += size) {
          const chunk = items.slice(start, start + size);
          const answers = await create(this.ctx, entity, chunk, context);
          for (const [j, item] of chunk.entries()) {
            let answer = answers[j] as PushResult | Error;
            if (entity === 'Payment' && overpaidRefusal(item.doc, answer))
              answer = await refusalOrThrow(() => this.pushAsCredit(item.doc, waves.context));
            waves.settle(item.i, item.doc.key, answer);
          }
        }
      }
      wave.clear();
      waves.created();
    };
    await waves.run(documents, {
      reverse: (doc) => this.reverse(doc, waves.context, lock),
      create: flush,
      place: async (doc, i) => {
        const parts = this.splitOf(doc);
        if (parts) return refusalOrThrow(() => this.pushParts(doc, parts, waves.context));
        const plan = await planDocument(this.ctx, doc, waves.context);
        if ('found' in plan) return plan.found;
        const sameNumber =
          plan.entity === 'Invoice' &&
          plan.body.invoiceNumber !== undefined &&
          (wave.get('Invoice') ?? []).some(
            (w) => w.body.invoiceNumber === plan.body.invoiceNumber && w.body.type === plan.body.type,
          );
        if (sameNumber) {
          // Two links of one name: the second is numbered once the first exists.
          return 'deferred';
        }
        if (
          plan.entity !== entitiesOf(doc.key)[0] &&
          waves.context.mayExist(doc.key) &&
          (await lookupOne(this.ctx, plan.entity, doc))
        )
          return refusalOrThrow(() => this.push(doc, waves.context));
        wave.set(plan.entity, [...(wave.get(plan.entity) ?? []), { i, doc, body: plan.body }]);
        waves.queue(doc.key);
        return 'queued';
      },
      afterRound: (deferred, round) => {
        if (deferred.length === round.length) {
          // Nothing moved (cannot happen unless a document waits on itself): refuse rather than loop.
          for (const i of deferred)
            outcomes[i] = new TargetRefusedError(this.name, `${documents[i]?.key} waits on itself`);
          return 'stop';
        }
        // Numbers looked up before this wave may be taken by it now.
        this.ctx.numbers = null;
        return undefined;
      },
    });
  }

  // ---- planning: which Xero document an entry becomes ----

  // ---- reversals ----

  /**
   * In the same open month as its original: Xero's own cancel of the original, a payment DELETED (its invoice
   * or bill is owed again), an invoice or credit note VOIDED (Xero refuses while payments are applied: its
   * message in FAILED), a bank transaction or bank transfer DELETED, a manual journal VOIDED. Read first: an
   * original already cancelled is found. Across months or into a locked period the original is never touched:
   * reversing documents dated in the open period carry the reversal's marker (reversingPlans).
   */
  private async reverse(
    given: TargetDocument,
    context: PushContext,
    lock: string | null,
  ): Promise<PushResult> {
    const doc = datedOpen(given, lock);
    const record = doc.reverses
      ? ((await context.pushed(doc.reverses)) ?? (await find(this.ctx, doc.reverses)))
      : null;
    const ids = (record?.remoteIds ?? []).flatMap((r) => parseRemoteId(r) ?? []);
    if (ids.length > 1 && salesPayments.has(keyPrefix(baseKey(doc.reverses ?? ''))))
      return this.reverseParts(given, doc, ids, lock, context);
    const original = ids[0] ?? null;
    if (!original) {
      const made = await reversingDocuments(this.ctx, doc.key);
      if (made) return { ...made, contentHash: doc.contentHash, created: false };
      throw new TargetRefusedError(
        this.name,
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
    const current = await read(this.ctx, entity, id);
    if (!current)
      throw new TargetRefusedError(this.name, `nothing to reverse: ${entity} ${id} is not in Xero`);
    if (deletedStatuses.has(String(current.status))) return result(false);
    if (!reversesInPlace(given, lock, dayOf(current.date)))
      return this.reverseAfterClose(doc, entity, current, context);
    await cancel(this.ctx, doc, entity, id, current);
    this.options.logger?.info({ key: doc.key, entity, id }, 'cancelled in xero');
    return result(true);
  }

  /**
   * Money in parts reversed (an ACH return of a payment that paid the invoice and its memo): every part, as
   * one part alone would be. In the same open month each Payment DELETED (its invoice owed again) and the
   * credit's bank transaction DELETED; across months or into a locked period nothing is touched and, in the
   * open period, an ACCREC invoice per part for what the customer owes again (`part=<tag>` after the
   * reversal's marker, the link noted for Xero's aged receivables) and one SPEND bank transaction of the
   * whole out of the account the money went into (one bank line, as the bank returns it), both on Refunds,
   * where they net to nothing. Found again by the reversal's key, each made once.
   */
  private async reverseParts(
    given: TargetDocument,
    doc: TargetDocument,
    ids: { entity: XeroEntity; id: string }[],
    lock: string | null,
    context: PushContext,
  ): Promise<PushResult> {
    const parts: { entity: XeroEntity; id: string; record: Body }[] = [];
    for (const { entity, id } of ids) {
      const record = await read(this.ctx, entity, id);
      if (!record)
        throw new TargetRefusedError(this.name, `nothing to reverse: ${entity} ${id} is not in Xero`);
      parts.push({ entity, id, record });
    }
    const deleted = (created: boolean): PushResult => ({
      key: doc.key,
      remoteIds: ids.map(({ entity, id }) => `deleted:${entity}:${id}`),
      contentHash: doc.contentHash,
      created,
    });
    const live = parts.filter((p) => !deletedStatuses.has(String(p.record.status)));
    if (live.length === 0) return deleted(false);
    if (!reversesInPlace(given, lock, dayOf(live[0]?.record.date)))
      return this.reversePartsAfterClose(doc, parts, context);
    for (const part of live) await cancel(this.ctx, doc, part.entity, part.id, part.record);
    this.options.logger?.info({ key: doc.key, parts: live.length }, 'cancelled every part in xero');
    return deleted(true);
  }

  private async reversePartsAfterClose(
    doc: TargetDocument,
    parts: { entity: XeroEntity; id: string; record: Body }[],
    context: PushContext,
  ): Promise<PushResult> {
    const pair = pairOf(doc.lines);
    if (pair?.debit !== 'AccountsReceivable' || !(await this.ctx.accounts.isBank(pair.credit)))
      throw new TargetRefusedError(this.name, `${doc.key}: not money back out of a bank account`);
    const mark = marker(doc.key, doc.contentHash);
    const contact = { contactID: await this.ctx.contacts.id(doc.customer ?? unnamedCustomer) };
    const refunds = this.ctx.accounts.code('Refunds');
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
            lineItems: [
              {
                description: `${doc.description} (${tag})`,
                quantity: 1,
                unitAmount: centsToAmount(cents),
                accountCode: refunds,
              },
            ],
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
          bankAccount: { code: this.ctx.accounts.code(pair.credit) },
          date: doc.date,
          reference: mark,
          lineItems: [
            {
              description: doc.description,
              quantity: 1,
              unitAmount: centsToAmount(doc.amountCents),
              accountCode: refunds,
            },
          ],
        },
      },
    });
    const remoteIds: string[] = [];
    let created = false;
    const found = new Map<XeroEntity, Body[]>();
    for (const { tag, plan } of plans) {
      if (!found.has(plan.entity)) found.set(plan.entity, await marked(this.ctx, plan.entity, doc.key));
      const existing = found.get(plan.entity)?.find((r) => partIn(markerText(plan.entity, r)) === tag);
      if (existing) {
        const stored = markOf(plan.entity, existing, doc.key)?.contentHash ?? '';
        if (stored !== doc.contentHash)
          throw new TargetConflictError(this.name, doc.key, stored, doc.contentHash);
        remoteIds.push(`${plan.entity}:${idOf(plan.entity, existing)}`);
        continue;
      }
      const [outcome] = await create(
        this.ctx,
        plan.entity,
        [{ doc, body: (await taxed(this.ctx, plan)).body }],
        context,
      );
      if (outcome instanceof Error) throw outcome;
      remoteIds.push(...(outcome as PushResult).remoteIds);
      created = true;
    }
    this.options.logger?.info({ key: doc.key, remoteIds }, 'reversed every part after close in xero');
    return { key: doc.key, remoteIds, contentHash: doc.contentHash, created };
  }

  /**
   * A reversal across months or into a locked period: new documents dated in the open period, each carrying
   * the reversal's marker; the ones already made (a crash between two) are found, not made again.
   */
  private async reverseAfterClose(
    doc: TargetDocument,
    entity: XeroEntity,
    paid: Body,
    context: PushContext,
  ): Promise<PushResult> {
    const plans: Plan[] = [];
    for (const plan of await this.reversingPlans(doc, entity, paid)) plans.push(await taxed(this.ctx, plan));
    const remoteIds: string[] = [];
    let created = false;
    for (const plan of plans) {
      const existing = await lookupOne(this.ctx, plan.entity, doc);
      if (existing) {
        if (existing.contentHash !== doc.contentHash)
          throw new TargetConflictError(this.name, doc.key, existing.contentHash, doc.contentHash);
        remoteIds.push(...existing.remoteIds);
        continue;
      }
      const [outcome] = await create(this.ctx, plan.entity, [{ doc, body: plan.body }], context);
      if (outcome instanceof Error) throw outcome;
      remoteIds.push(...(outcome as PushResult).remoteIds);
      created = true;
    }
    this.options.logger?.info({ key: doc.key, remoteIds }, 'reversed after close in xero');
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
  private async reversingPlans(doc: TargetDocument, entity: XeroEntity, paid: Body): Promise<Plan[]> {
    const pair = pairOf(doc.lines);
    const mark = marker(doc.key, doc.contentHash);
    const amount = centsToAmount(doc.amountCents);
    const line = (role: AccountRole) => ({
      description: doc.description,
      quantity: 1,
      unitAmount: amount,
      accountCode: this.ctx.accounts.code(role),
    });
    const contactOf = async (fallback: Party | undefined) =>
      paid.invoice?.contact?.contactID
        ? { contactID: String(paid.invoice.contact.contactID) }
        : { contactID: await this.ctx.contacts.id(fallback ?? unnamedCustomer) };
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
        bankAccount: { code: this.ctx.accounts.code(bank) },
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
        ...(type === 'ACCREC' ? { reference: doc.invoice ? `${mark} ${ownerNote(doc.invoice)}` : mark } : {}),
        status: 'AUTHORISED',
        lineItems: [
          type === 'ACCREC'
            ? line(offset)
            : {
                ...line(offset),
                description: `${doc.description}; ${mark}${doc.bill ? ` ${ownerNote(doc.bill)}` : ''}`,
              },
        ],
      },
    });
    if (
      entity === 'Payment' &&
      pair?.debit === 'AccountsReceivable' &&
      (await this.ctx.accounts.isBank(pair.credit))
    ) {
      const contact = await contactOf(doc.customer);
      return [invoice('ACCREC', contact, 'Refunds'), bankMove('SPEND', pair.credit, contact, 'Refunds')];
    }
    if (
      entity === 'Payment' &&
      pair?.credit === 'AccountsPayable' &&
      (await this.ctx.accounts.isBank(pair.debit))
    ) {
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
            reference: mark,
            status: 'AUTHORISED',
            lineItems: [line(pair.debit)],
          },
        },
      ];
    }
    return [await moneyMove(this.ctx, doc)];
  }
}
