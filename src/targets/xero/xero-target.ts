import type { Logger } from 'pino';
import type { AccountMapping, VendorExpenseAccounts } from '../account-mapping.js';
import { LockReader, laterOf } from '../closed-periods.js';
import { TargetConfigurationError, TargetDisconnectedError, TargetUnavailableError } from '../errors.js';
import { companyLimiter, type RealmLimiter } from '../oauth/limiter.js';
import type { CompanyTokenStore } from '../oauth/token-store.js';
import type { TargetFigures, TargetFiguresReader } from '../target-figures.js';
import type {
  AccountingTarget,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../target-port.js';
import { AccountDirectory } from './accounts.js';
import { XeroClient } from './client.js';
import { ContactDirectory, type MatchingPolicy } from './contacts.js';
import type { XeroContext } from './context.js';
import { XeroFigures } from './figures.js';
import { find } from './look-ups.js';
import { pushDocument } from './push.js';
import { type Body, dayOf } from './records.js';
import { TaxTypeDirectory } from './tax-rates.js';
import { pushMany } from './waves.js';

// Xero behind the accounting-target port, on the official SDK (client.ts). Idempotency: every
// create carries an Idempotency-Key derived from the entry key and the body (Xero replays the first answer),
// and push() first looks the key up at Xero by the marker the record carries (keys.ts), so a crash between a
// create and the index write finds the record instead of making a second one. remoteIds are
// `<Entity>:<id>`; a reversal is the original's own status change, `deleted:<Entity>:<id>`.
//
// Xero's limits (60 calls a minute, 5 at once, and 1,000 or 5,000 in a rolling 24 hours per organisation by the
// app's tier) are held by the tenant's worker-wide limiter, which also follows Xero's own count in every
// answer's headers (client.ts) and learns the day's limit from them; pushMany() looks a backlog up and creates
// it in batches (one call for many invoices, payments, bank transactions, credit notes or journals), so a busy
// day stays far inside the day's calls.

/**
 * Xero's limits per organisation; a second of margin on the minute (see LimiterOptions.marginMs). The day is a
 * rolling 24 hours, not a UTC day (developer.xero.com/documentation/guides/oauth2/limits; XeroAPI/xero-node#262),
 * of 1,000 calls on the Starter tier and 5,000 on the others (Xero's tiers since 2 March 2026,
 * https://developer.xero.com/faq/pricing-and-policy-updates). Xero says what is left (X-DayLimit-Remaining), not
 * which tier: the budget is the Starter tier's until an answer shows more (LimiterOptions.dayLimits).
 */
export const XERO_LIMITS = {
  perMinute: 60,
  concurrent: 5,
  perDay: 1_000,
  dayLimits: [1_000, 5_000],
  dayWindowMs: 86_400_000,
  warnAt: 0.8,
  marginMs: 1_000,
} as const;

export interface XeroTargetOptions {
  baseUrl: string;
  tenantId: string;
  tokenStore: CompanyTokenStore;
  accounts: AccountMapping;
  /** VENDOR_EXPENSE_ACCOUNTS: the vendors whose bills are expensed to an account of their own. */
  vendorExpenses?: VendorExpenseAccounts;
  matching: MatchingPolicy;
  logger?: Logger;
  /** Defaults to the worker-wide limiter of the tenant. */
  limiter?: RealmLimiter;
  /** How long the lock dates read from Xero are trusted (60 s; a lock-date refusal reads them again). */
  lockTtlMs?: number;
  /** The TaxType on booksync's lines (XERO_TAX_TYPE); unset: the organisation's no-tax rate (tax-rates.ts). */
  taxType?: string;
  /** The minute of Xero's rate limit as counted (XERO_RATE_WINDOW); Xero's 60 s when absent. */
  minuteMs?: number;
}

/** The tenant's worker-wide limiter: Xero's 60 a minute, 5 at once, the tier's day in a rolling 24 hours. */
export function xeroLimiter(tenantId: string, logger?: Logger, minuteMs?: number): RealmLimiter {
  return companyLimiter('xero', tenantId, {
    ...XERO_LIMITS,
    ...(minuteMs ? { windowMs: minuteMs } : {}),
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
  /** The Xero organisation (tenant id) this target pushes to. */
  readonly company: string;
  readonly client: XeroClient;
  private readonly ctx: XeroContext;

  private readonly options: XeroTargetOptions;
  constructor(options: XeroTargetOptions) {
    this.options = options;
    this.company = options.tenantId;
    this.client = new XeroClient({
      baseUrl: options.baseUrl,
      tenantId: options.tenantId,
      tokens: options.tokenStore,
      limiter: options.limiter ?? xeroLimiter(options.tenantId, options.logger, options.minuteMs),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.ctx = {
      name: this.name,
      client: this.client,
      accounts: new AccountDirectory(this.client, options.accounts, options.vendorExpenses),
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
  /** A receipt's reversal is noted on the transfer of the payout that carried it (payouts.ts). */
  readonly payoutFacts = ['carriedBy'] as const;

  async pushMany(given: TargetDocument[], context: PushContext): Promise<(PushResult | Error)[]> {
    const outcomes = await pushMany(this.ctx, given, context);
    this.flagDailyUsage();
    return outcomes;
  }

  private flagDailyUsage() {
    const usage = this.dailyUsage();
    if (usage?.nearingLimit)
      this.options.logger?.warn({ ...usage, flag: 'xero-daily-limit' }, 'Xero daily call limit nearly spent');
  }
}
