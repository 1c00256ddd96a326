import type { Logger } from 'pino';
import type { AccountMapping } from '../account-mapping.js';
import { datedOpen, LockReader, laterOf } from '../closed-periods.js';
import {
  TargetConfigurationError,
  TargetDisconnectedError,
  TargetRefusedError,
  TargetUnavailableError,
} from '../errors.js';
import { companyLimiter, type RealmLimiter } from '../oauth/limiter.js';
import type { CompanyTokenStore } from '../oauth/token-store.js';
import { PushWaves, refusalOrThrow } from '../push-waves.js';
import type { TargetFigures, TargetFiguresReader } from '../target-figures.js';
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
import { invoiceName, planDocument } from './documents.js';
import { create } from './entity-calls.js';
import { XeroFigures } from './figures.js';
import { invoicesNumbered } from './invoice-numbers.js';
import { find, lookUpAll, lookupOne } from './look-ups.js';
import { pushParts, splitOf } from './money-parts.js';
import { effectiveLock, pushAsCredit, pushDocument } from './push.js';
import { type Body, dayOf, entitiesOf, LOOKUP_CHUNK, overpaidRefusal, type XeroEntity } from './records.js';
import { reverse } from './reversals.js';
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
    return pushDocument(this.ctx, document, context);
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
      const lock = await effectiveLock(this.ctx, context);
      const documents = given.map((d) => (d.kind === 'reversal' ? d : datedOpen(d, lock)));
      // Money in parts is looked up part by part when it is placed (pushParts).
      await lookUpAll(
        this.ctx,
        documents.map((d) => (context.mayExist(d.key) && !splitOf(d) ? d : null)),
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
              answer = await refusalOrThrow(() => pushAsCredit(this.ctx, item.doc, waves.context));
            waves.settle(item.i, item.doc.key, answer);
          }
        }
      }
      wave.clear();
      waves.created();
    };
    await waves.run(documents, {
      reverse: (doc) => reverse(this.ctx, doc, waves.context, lock),
      create: flush,
      place: async (doc, i) => {
        const parts = splitOf(doc);
        if (parts) return refusalOrThrow(() => pushParts(this.ctx, doc, parts, waves.context));
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
          return refusalOrThrow(() => pushDocument(this.ctx, doc, waves.context));
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
}
