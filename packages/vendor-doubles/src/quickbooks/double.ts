import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthGrants } from '../oauth-grants.js';
import { startVendorDoubleServer } from '../server.js';
import {
  depositableTypes,
  depositedKeys,
  depositLinks,
  type Entities,
  fundsKey,
  fundsToDeposit,
  linkedFunds,
} from './deposits.js';
import { filterRefusal, type QueryOperator } from './filterable-fields.js';
import { freshChart } from './fresh-chart.js';
import {
  type AutomatedSalesTax,
  applyAutomatedSalesTax,
  astTaxCode,
  pseudoTaxCodes,
  salesTaxPayable,
  taxedEntities,
  taxOf,
} from './sales-tax.js';
import { quickBooksContract, type XsdContract } from './xsd-contract.js';

// A stateful QuickBooks Online v3 on loopback for the adapter's tests (not shipped). It keeps realms with
// their entities, account balances from the postings of every transaction, invoice and bill balances that
// move with linked payments, requestid replay for as long as it is told to (forever, a while, or not at all),
// SyncToken conflicts, OAuth with rotating refresh tokens and their hard expiry, and throttling / outages /
// lost responses on demand. Every request body the adapter sends and every response body it returns is
// checked against Intuit's XSDs; a violation is recorded in `violations` (tests assert it empty) and answered
// with a 400 whose message says "XSD contract violation", so it fails loudly.
//
// It also holds QuickBooks' business rules, each answered with QBO's own Fault (README.md in this folder: the
// rule, Intuit's source, the function here that enforces it, the test that fails without it): queries filter
// only on what Intuit documents as filterable (filterable-fields.ts), voids as Intuit documents them
// (Payment, BillPayment and SalesReceipt `operation=update&include=void`, Invoice `operation=void`, "Voided"
// prefixed to PrivateNote) and nothing changed after a void, a deposited payment cannot be voided (6540), no
// payment beyond an invoice's or bill's Balance nor on a voided one, A/R and A/P journal lines name their
// customer or vendor, DisplayName is unique across customers, vendors and employees (6240), a BillPayment
// pays from a Bank (check) or Credit Card account, a Deposit goes to a Bank or Other Current Asset account
// and links a payment once, a SalesReceipt is deposited to one too, a credit memo is applied (a Payment
// linking it and an invoice) for no more than its Balance nor the invoice's, and QBO's limits per company and
// app: 500 requests a minute, 10 a second, 10 at once, 40 batch requests a minute (429). A company may run
// automated sales tax (a realm option): it taxes a sales line sent without a non-taxable TaxCodeRef, as QBO's
// AST engine does (sales-tax.ts).

type Entity = Record<string, unknown> & { Id: string; SyncToken: string };
type Posting = { account: string; cents: number };

interface Realm {
  id: string;
  entities: Map<string, Map<string, Entity>>;
  postings: Map<string, Posting[]>;
  nextId: number;
  /**
   * requestid -> the first response (status and body) and when it was given, replayed for the same requestid
   * while the double retains it (`requestIdRetentionMs`).
   */
  replies: Map<string, { status: number; body: unknown; at: number }>;
  inFlight: number;
  maxInFlight: number;
  creates: number;
  /** Batch requests served. */
  batches: number;
  /** When each request accepted under the limits arrived (the last minute's), and each batch request. */
  arrivals: number[];
  batchArrivals: number[];
  /** Requests answered 429 for one of QBO's limits (not the injected throttle()), by limit. */
  refusedForLimit: Record<string, number>;
  /** `<Entity>:<Id>` of every voided transaction. */
  voided: Set<string>;
  /** The company's automated sales tax engine, when it is switched on (RealmOptions). */
  automatedSalesTax: AutomatedSalesTax | null;
  /** The code a write into closed books is refused with (RealmOptions.closedBooksCode). */
  closedBooksCode: ClosedBooksCode;
}

/**
 * How QBO refuses a write into closed books: `6200` as Intuit's error list gives it, or `5010` with the message
 * "Account Period Closed", as QBO answered a Bill and an Invoice create (routablehq/python-quickbooks#208).
 */
export type ClosedBooksCode = '6200' | '5010';

/** How a company is set up in the double. */
export interface RealmOptions {
  /** Automated sales tax switched on (Preferences.TaxPrefs.PartnerTaxEnabled), at this rate (8.25 % default). */
  automatedSalesTax?: { ratePercent?: number };
  /** The Fault a write into closed books gets (`6200` by default). */
  closedBooksCode?: ClosedBooksCode;
  /**
   * The chart it starts with: a new QBO company's accounts without numbers (`fresh`, fresh-chart.ts: by
   * default, the sample sandbox company's shape, none of booksync's accounts until `booksync targets setup
   * quickbooks --apply`), or the accounts given, each as an Account created through the API (Name,
   * AcctNum, AccountType, AccountSubType), for a company a test wants already set up.
   */
  chart?: 'fresh' | readonly Record<string, unknown>[];
}

/** QBO's limits per company (realm) and app: https://developer.intuit.com/app/developer/qbo/docs/learn/limits-and-throttles */
export interface QboLimits {
  perMinute: number;
  perSecond: number;
  concurrent: number;
  batchesPerMinute: number;
}

export const qboLimits: QboLimits = { perMinute: 500, perSecond: 10, concurrent: 10, batchesPerMinute: 40 };

const entityPaths: Record<string, string> = {
  customer: 'Customer',
  vendor: 'Vendor',
  account: 'Account',
  item: 'Item',
  invoice: 'Invoice',
  payment: 'Payment',
  deposit: 'Deposit',
  journalentry: 'JournalEntry',
  purchase: 'Purchase',
  refundreceipt: 'RefundReceipt',
  salesreceipt: 'SalesReceipt',
  creditmemo: 'CreditMemo',
  bill: 'Bill',
  billpayment: 'BillPayment',
  employee: 'Employee',
  preferences: 'Preferences',
  taxcode: 'TaxCode',
};

/**
 * The rules a mutation check may turn off, one by one: `QBO_DOUBLE_RULES_OFF=filterable,per-second npm test
 * -- ...` runs the double without them, so a test that still passes does not rest on them (README.md).
 */
export const ruleNames = [
  'filterable',
  'void-operation',
  'void-note',
  'deposited-void',
  'within-balance',
  'voided-invoice',
  'journal-parties',
  'display-name',
  'billpayment-account',
  'deposit-account',
  'deposit-once',
  'deposit-linked-type',
  'deposit-undeposited',
  'deposit-amount',
  'deposit-total',
  'per-minute',
  'per-second',
  'concurrent',
  'batches-per-minute',
  'batch-isolation',
  'duplicate-docnumber',
  'stale-synctoken',
  'requestid-replay',
  'invoice-void-applied',
  'string-length',
  'books-closed',
  'salesreceipt-account',
  'payment-account',
  'credit-within-balance',
  'automated-sales-tax',
  'voided-update',
] as const;

/** The transactions QBO dates (TxnDate) and so refuses on or before the books closing date. */
const transactionEntities = new Set([
  'Invoice',
  'Payment',
  'Deposit',
  'JournalEntry',
  'Purchase',
  'RefundReceipt',
  'SalesReceipt',
  'CreditMemo',
  'Bill',
  'BillPayment',
]);

/**
 * QBO's lengths of the strings booksync writes (Finance.xsd "ValidRange: QBO: max=21" on DocNumber, of every
 * Transaction: a Deposit's and a BillPayment's too). PaymentRefNum has no length in the XSD: held to the same
 * 21, the cautious reading, as booksync writes it (src/targets/quickbooks/README.md, "References").
 */
const maxLengths: Record<string, number> = { DocNumber: 21, PaymentRefNum: 21, PrivateNote: 4000 };

const rulesOff = new Set((process.env.QBO_DOUBLE_RULES_OFF ?? '').split(',').filter(Boolean));
for (const name of rulesOff)
  if (!(ruleNames as readonly string[]).includes(name))
    throw new Error(`QBO_DOUBLE_RULES_OFF: no rule ${name}`);
const on = (rule: (typeof ruleNames)[number]) => !rulesOff.has(rule);

/** Intuit's limit on a refresh token's life, whatever its use (Intuit's 2025 refresh token policy). */
const FIVE_YEARS_MS = 5 * 365 * 86_400_000;

/** DisplayName is one namespace across these (error 6240). */
const nameEntities = ['Customer', 'Vendor', 'Employee'];

export class FaultError extends Error {
  readonly status: number;
  readonly type: string;
  readonly qboMessage: string;
  readonly detail: string;
  readonly code: string;
  constructor(status: number, type: string, qboMessage: string, detail: string, code: string) {
    super(qboMessage);
    this.status = status;
    this.type = type;
    this.qboMessage = qboMessage;
    this.detail = detail;
    this.code = code;
  }
}

const cents = (amount: unknown): number => Math.round(Number(amount) * 100);
const amount = (c: number): number => Number((c / 100).toFixed(2));
/** Cents as a report writes an amount: "1234.50", "-12.00" (through the digits, no float). */
const money = (c: number): string =>
  `${c < 0 ? '-' : ''}${Math.trunc(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;
const refValue = (ref: unknown): string => String((ref as { value?: unknown } | undefined)?.value ?? '');

export interface DoubleOptions {
  clientId?: string;
  clientSecret?: string;
  accessTokenTtlMs?: number;
  /** Simulated latency per API request, so concurrency is observable. */
  latencyMs?: number;
  /**
   * The clock the limits, the requestid retention and the refresh token's hard expiry count on (a test moves
   * it to cross a minute); Date.now by default.
   */
  now?: () => number;
  /**
   * How long a requestid is answered with its first result. Intuit documents the requestid but not how long
   * QBO keeps it, and QBO has been seen making a second record for a repeated requestid
   * (intuit/QuickBooks-V3-DotNET-SDK#352): 0 is a requestid not honoured at all. Forever by default.
   */
  requestIdRetentionMs?: number;
  /**
   * When refresh tokens stop working whatever their use (Intuit's five-year limit), answered as
   * `x_refresh_token_hard_expires_in` to a token request that asks for it; five years from the double's start
   * by default.
   */
  refreshTokenHardExpiresAt?: number;
}

export class QuickBooksDouble {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly violations: string[] = [];
  /** Every API request: method, path, requestid, for assertions. */
  readonly requests: { method: string; url: string; realmId: string }[] = [];
  private readonly contract: XsdContract = quickBooksContract();
  private readonly realms = new Map<string, Realm>();
  /** Tokens and codes, each for one company (its realmId). */
  private readonly grants: OAuthGrants<string>;
  private readonly latencyMs: number;
  private throttled = 0;
  private readonly nextFaults: FaultError[] = [];
  private readonly nextCreateRefusals: FaultError[] = [];
  private readonly stale = new Set<string>();
  private lostResponses = 0;
  private outageUntil = 0;
  private app: FastifyInstance | null = null;
  private readonly now: () => number;
  private requestIdRetentionMs: number;
  private refreshTokenHardExpiresAt: number;
  url = '';

  constructor(options: DoubleOptions = {}) {
    this.clientId = options.clientId ?? 'client-booksync';
    this.clientSecret = options.clientSecret ?? 'secret-booksync';
    this.grants = new OAuthGrants(this, options.accessTokenTtlMs ?? 3_600_000);
    this.latencyMs = options.latencyMs ?? 0;
    this.now = options.now ?? Date.now;
    this.requestIdRetentionMs = options.requestIdRetentionMs ?? Number.POSITIVE_INFINITY;
    this.refreshTokenHardExpiresAt = options.refreshTokenHardExpiresAt ?? this.now() + FIVE_YEARS_MS;
  }

  async start(): Promise<this> {
    const { app, url } = await startVendorDoubleServer((app) => {
      app.post('/oauth2/v1/tokens/bearer', (req, reply) => this.token(req, reply));
      app.post('/oauth2/v1/tokens/revoke', (req, reply) => {
        const token = (req.body as { token?: string }).token ?? '';
        this.grants.revokeRefreshToken(token);
        return reply.send({});
      });
      app.all('/v3/company/:realmId/*', (req, reply) => this.api(req, reply));
    });
    this.url = url;
    this.app = app;
    return this;
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }

  // ---- sandbox controls ----

  /** A new QBO company (its chart without numbers, TAX and NON), or one with the accounts given (`chart`). */
  createRealm(realmId = String(9_130_000_000_000 + this.realms.size), options: RealmOptions = {}): string {
    const realm: Realm = {
      id: realmId,
      entities: new Map(Object.values(entityPaths).map((e) => [e, new Map()])),
      postings: new Map(),
      nextId: 1,
      replies: new Map(),
      inFlight: 0,
      maxInFlight: 0,
      creates: 0,
      batches: 0,
      arrivals: [],
      batchArrivals: [],
      refusedForLimit: {},
      voided: new Set(),
      automatedSalesTax: null,
      closedBooksCode: options.closedBooksCode ?? '6200',
    };
    this.realms.set(realmId, realm);
    const chart = options.chart ?? 'fresh';
    for (const account of chart === 'fresh' ? freshChart : chart)
      this.store(realm, 'Account', { ...account, Active: true });
    // A US company's pseudo tax codes TAX and NON (sales-tax.ts).
    for (const code of pseudoTaxCodes) this.store(realm, 'TaxCode', code, String(code.Id));
    const ast = options.automatedSalesTax;
    if (ast) {
      realm.automatedSalesTax = {
        basisPoints: Math.round((ast.ratePercent ?? 8.25) * 100),
        taxCodeId: this.store(realm, 'TaxCode', astTaxCode).Id,
        accountId: this.store(realm, 'Account', salesTaxPayable).Id,
      };
    }
    // The company's one Preferences object; books open (no BookCloseDate) until closeBooks().
    this.store(realm, 'Preferences', {
      AccountingInfoPrefs: { TrackDepartments: false },
      ...(ast ? { TaxPrefs: { UsingSalesTax: true, PartnerTaxEnabled: true } } : {}),
    });
    return realmId;
  }

  /**
   * Settings → Advanced → Close the books: QBO refuses, through the API, any transaction dated on or before
   * `date` (null opens the books). The API's own way is an update of Preferences (AccountingInfoPrefs).
   */
  closeBooks(realmId: string, date: string | null): void {
    const preferences = this.preferences(this.realm(realmId));
    const prefs = { ...(preferences.AccountingInfoPrefs as Record<string, unknown>) };
    if (date === null) delete prefs.BookCloseDate;
    else prefs.BookCloseDate = date;
    preferences.AccountingInfoPrefs = prefs;
    preferences.SyncToken = String(Number(preferences.SyncToken) + 1);
  }

  /** The books closing date (AccountingInfoPrefs.BookCloseDate), null when the books are open. */
  bookCloseDate(realmId: string): string | null {
    return this.closingDate(this.realm(realmId));
  }

  /** The authorization code QBO's consent page would hand to the redirect URI. */
  authorize(realmId: string): string {
    return this.grants.authorize(realmId);
  }

  /** A refresh token as `booksync targets connect quickbooks` would have stored it. */
  connect(realmId: string): string {
    return this.grants.connect(realmId);
  }

  /** The company disconnected the app: every token of the realm stops working. */
  revoke(realmId: string): void {
    this.grants.revoke((realm) => realm === realmId);
  }

  /** Access tokens die now (QBO's are good for an hour): the next call gets a 401. */
  expireAccessTokens(): void {
    this.grants.expireAccessTokens();
  }

  setAccessTokenTtl(ms: number): void {
    this.grants.accessTokenTtlMs = ms;
  }

  /** How long a requestid is answered with its first result from now on (0: not honoured). */
  retainRequestIds(ms: number): void {
    this.requestIdRetentionMs = ms;
  }

  /** When the refresh tokens stop working whatever their use (`x_refresh_token_hard_expires_in`). */
  setRefreshTokenHardExpiry(at: number): void {
    this.refreshTokenHardExpiresAt = at;
  }

  /** Refresh-token grants answered so far. */
  get refreshGrants(): number {
    return this.grants.refreshGrants;
  }

  /** The next n API requests answer 429 ThrottleExceeded before doing anything. */
  throttle(n: number): void {
    this.throttled += n;
  }

  /** The next n writes are done, then their response is lost (a 502), as on a dropped connection. */
  loseResponses(n: number): void {
    this.lostResponses += n;
  }

  /** The next write answers this Fault (a closed period, a business rule, a system fault...). */
  failNext(fault: FaultError): void {
    this.nextFaults.push(fault);
  }

  /**
   * The next create is refused with this Fault as QBO refuses for the state of the company (an account made
   * inactive, a number in use): unlike failNext it is QBO's own answer, so the same requestid replays it.
   */
  refuseNextCreate(fault: FaultError): void {
    this.nextCreateRefusals.push(fault);
  }

  /** Someone edits this record just before booksync's next update of it: booksync's SyncToken is stale once. */
  editConcurrently(realmId: string, entity: string, id: string): void {
    this.stale.add(`${realmId}:${entity}:${id}`);
  }

  /** Clears throttling, lost answers, injected faults and outages left by a test. */
  calm(): void {
    this.throttled = 0;
    this.lostResponses = 0;
    this.nextFaults.length = 0;
    this.nextCreateRefusals.length = 0;
    this.stale.clear();
    this.outageUntil = 0;
  }

  outage(ms: number): void {
    this.outageUntil = Date.now() + ms;
  }

  maxInFlight(realmId: string): number {
    return this.realm(realmId).maxInFlight;
  }

  batches(realmId: string): number {
    return this.realm(realmId).batches;
  }

  /** Requests refused (429) for one of QBO's limits, by limit ('perMinute', 'perSecond', 'concurrent', 'batchesPerMinute'). */
  refusedForLimit(realmId: string): Record<string, number> {
    return { ...this.realm(realmId).refusedForLimit };
  }

  /** Whether QBO holds this transaction voided. */
  isVoided(realmId: string, entity: string, id: string): boolean {
    return this.realm(realmId).voided.has(`${entity}:${id}`);
  }

  creates(realmId: string): number {
    return this.realm(realmId).creates;
  }

  all(realmId: string, entity: string): Entity[] {
    return [...(this.realm(realmId).entities.get(entity)?.values() ?? [])];
  }

  get(realmId: string, entity: string, id: string): Entity | undefined {
    return this.realm(realmId).entities.get(entity)?.get(id);
  }

  /** Inserts an entity as if someone had keyed it in QuickBooks (customers to match, stale tokens...). */
  seed(realmId: string, entity: string, body: Record<string, unknown>): Entity {
    return this.store(this.realm(realmId), entity, body);
  }

  /**
   * A bookkeeper's edit in QuickBooks' own screens (not through booksync): `edit` changes the stored
   * transaction (an amount, a line, a date), then QBO recomputes it as it would: TotalAmt from the lines, its
   * postings, the invoice and bill balances; the SyncToken moves. The edit must leave an XSD-valid entity.
   */
  editTransaction(
    realmId: string,
    entity: string,
    id: string,
    edit: (transaction: Record<string, unknown>) => void,
  ): Entity {
    const realm = this.realm(realmId);
    const current = realm.entities.get(entity)?.get(id);
    if (!current) throw new Error(`no ${entity} ${id}`);
    const next = structuredClone(current) as Entity;
    edit(next);
    if (['Invoice', 'Bill', 'Payment', 'BillPayment', 'CreditMemo'].includes(entity)) {
      const total = this.lineTotal({ ...next, TotalAmt: undefined }, entity);
      next.TotalAmt = amount(total);
    }
    next.SyncToken = String(Number(current.SyncToken) + 1);
    next.MetaData = { ...(current.MetaData as object), LastUpdatedTime: now() };
    const problems = this.contract.check(next, this.contract.entityType(entity), `$.${entity}`);
    if (problems.length > 0) throw new Error(`the edit leaves an invalid ${entity}: ${problems.join('; ')}`);
    const postings = realm.voided.has(`${entity}:${id}`) ? null : this.postingsOf(realm, entity, next);
    realm.entities.get(entity)?.set(id, next);
    if (postings) realm.postings.set(`${entity}:${id}`, postings);
    this.settle(realm);
    return next;
  }

  /**
   * Balance in cents, debit positive, from the postings of every transaction, of the account a mapping names:
   * by AcctNum, else by Id (as the adapter reads TARGET_ACCOUNTS: a chart without numbers is mapped by Id).
   */
  balanceOf(realmId: string, acctNum: string): number {
    const realm = this.realm(realmId);
    const chart = this.all(realmId, 'Account');
    const account = chart.find((a) => a.AcctNum === acctNum) ?? chart.find((a) => a.Id === acctNum);
    if (!account) throw new Error(`no account ${acctNum}`);
    let sum = 0;
    for (const postings of realm.postings.values())
      for (const p of postings) if (p.account === account.Id) sum += p.cents;
    return sum;
  }

  /** What the company's automated sales tax put in its Sales Tax Payable account, in cents (0 without AST). */
  salesTaxOwed(realmId: string): number {
    const realm = this.realm(realmId);
    let owed = 0;
    for (const postings of realm.postings.values())
      for (const p of postings) if (p.account === realm.automatedSalesTax?.accountId) owed -= p.cents;
    return owed;
  }

  // ---- OAuth ----

  private token(req: FastifyRequest, reply: FastifyReply) {
    const answer = this.grants.exchange(req.headers.authorization, req.body as Record<string, string>);
    if ('error' in answer) return reply.code(answer.error === 'invalid_client' ? 401 : 400).send(answer);
    // The hard expiry only to a request that asks for it (Intuit's oauth-jsclient#211: the request header
    // `x-include-refresh-token-hard-expires-in: true`, the answer's `x_refresh_token_hard_expires_in`, seconds).
    const hard = req.headers['x-include-refresh-token-hard-expires-in'] === 'true';
    return reply.send({
      token_type: 'bearer',
      access_token: answer.accessToken,
      expires_in: answer.expiresIn,
      refresh_token: answer.refreshToken,
      x_refresh_token_expires_in: 8_726_400,
      ...(hard
        ? {
            x_refresh_token_hard_expires_in: Math.max(
              0,
              Math.floor((this.refreshTokenHardExpiresAt - this.now()) / 1000),
            ),
          }
        : {}),
    });
  }

  // ---- the v3 API ----

  private async api(req: FastifyRequest, reply: FastifyReply) {
    const { realmId } = req.params as { realmId: string };
    const realm = this.realms.get(realmId);
    this.requests.push({ method: req.method, url: req.url, realmId });
    if (!realm)
      return this.fault(reply, new FaultError(403, 'AuthorizationFault', 'Unknown realm', realmId, '3100'));
    const rest = (req.params as { '*': string })['*'];
    const overLimit = this.overLimit(realm, req.method === 'POST' && rest.split('/')[0] === 'batch');
    if (overLimit) {
      realm.refusedForLimit[overLimit] = (realm.refusedForLimit[overLimit] ?? 0) + 1;
      return this.fault(reply, throttleFault());
    }
    realm.inFlight++;
    realm.maxInFlight = Math.max(realm.maxInFlight, realm.inFlight);
    try {
      if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
      const issued = this.grants.access(req.headers.authorization);
      if (!issued || issued.grant !== realmId || issued.expiresAt <= Date.now()) {
        return this.fault(
          reply,
          new FaultError(
            401,
            'AuthenticationFault',
            'message=AuthenticationFailed; errorCode=003200; statusCode=401',
            'Token expired or invalid',
            '3200',
          ),
        );
      }
      if (this.throttled > 0) {
        this.throttled--;
        return this.fault(reply, throttleFault(), { 'retry-after': '0' });
      }
      if (Date.now() < this.outageUntil) {
        return this.fault(
          reply,
          new FaultError(
            503,
            'SystemFault',
            'Service Unavailable',
            'QuickBooks is down for maintenance',
            '10000',
          ),
        );
      }
      const query = req.query as Record<string, string | undefined>;
      if (!query.minorversion) this.violations.push(`${req.method} ${req.url}: no minorversion`);
      const answer: { status: number; body: unknown; schema?: string } = this.route(
        realm,
        req.method,
        rest,
        query,
        req.body,
      );
      const { status, body } = answer;
      if (status === 200 && req.method === 'POST' && this.lostResponses > 0) {
        this.lostResponses--;
        return reply.code(502).type('text/html').send('<html>Bad Gateway</html>');
      }
      return this.send(reply, status, body, {}, answer.schema);
    } catch (error) {
      if (error instanceof FaultError) return this.fault(reply, error);
      throw error;
    } finally {
      realm.inFlight--;
    }
  }

  private route(
    realm: Realm,
    method: string,
    rest: string,
    query: Record<string, string | undefined>,
    body: unknown,
  ) {
    const [resource = '', id] = rest.split('/');
    if (method === 'GET' && resource === 'query')
      return { status: 200, body: this.query(realm, query.query ?? '') };
    if (method === 'GET' && resource === 'reports')
      return { status: 200, body: this.report(realm, id ?? '', query), schema: 'Report' };
    if (method === 'GET' && id) {
      const entity = entityPaths[resource];
      if (!entity)
        throw new FaultError(
          400,
          'ValidationFault',
          'Unsupported Operation',
          `no resource ${resource}`,
          '500',
        );
      const found = realm.entities.get(entity)?.get(id);
      if (!found)
        throw new FaultError(400, 'ValidationFault', 'Object Not Found', `${entity} ${id} not found`, '610');
      return { status: 200, body: { [entity]: found, time: now() } };
    }
    if (method !== 'POST')
      throw new FaultError(405, 'ValidationFault', 'Unsupported Operation', method, '500');
    const requestId = query.requestid;
    const replayKey = requestId ? `${resource}:${requestId}` : null;
    const replay = replayKey ? realm.replies.get(replayKey) : undefined;
    const retained = replay && this.now() - replay.at < this.requestIdRetentionMs;
    if (replay && retained && on('requestid-replay')) return replay;
    if (!requestId)
      this.violations.push(`POST ${resource} ${query.operation ?? 'create'} without a requestid`);
    if (resource === 'batch') {
      const reply = { status: 200, body: this.batch(realm, body), at: this.now() };
      if (replayKey) realm.replies.set(replayKey, reply);
      return reply;
    }
    const entity = entityPaths[resource];
    if (!entity)
      throw new FaultError(400, 'ValidationFault', 'Unsupported Operation', `no resource ${resource}`, '500');
    // An injected fault is one-off (not replayed), unlike QBO's own refusals.
    const injected = this.nextFaults.shift();
    if (injected) throw injected;
    try {
      const result = this.write(
        realm,
        entity,
        query.operation ?? 'create',
        (body ?? {}) as Record<string, unknown>,
        query.include,
      );
      const reply = { status: 200, body: { [entity]: result, time: now() }, at: this.now() };
      if (replayKey) realm.replies.set(replayKey, reply);
      return reply;
    } catch (error) {
      // A refusal is replayed too: the same requestid answers the same way.
      if (error instanceof FaultError && replayKey)
        realm.replies.set(replayKey, { status: error.status, body: faultBody(error), at: this.now() });
      throw error;
    }
  }

  /**
   * `GET /reports/<name>`: QBO's Reports API for the reports booksync reads (README "The reports"), built from
   * the company's transactions dated on or before the report's day and answered as Report.xsd's `Report`:
   * - TrialBalance (end_date, default today): per account with a balance, ColData [account (value = Name,
   *   id = Id), Debit, Credit]; income and expense accounts from the fiscal year's start (January: the
   *   double's company keeps QBO's default FiscalYearStartMonth), earlier years' net in a Retained Earnings
   *   row; a GrandTotal section's Summary with the totals;
   * - AgedReceivableDetail / AgedPayableDetail (report_date, default today; aging_method Report_Date): one
   *   Data row per invoice (bill) or A/R (A/P) journal entry open as of the day (its amount less the payments
   *   applied to it dated on or before the day), in sections by days past due, each with its Summary.
   * Any other report is refused as QBO refuses an unknown one.
   */
  private report(realm: Realm, name: string, query: Record<string, string | undefined>) {
    const day = (value: string | undefined, what: string) => {
      if (value === undefined) return now().slice(0, 10);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(value))
        throw new FaultError(
          400,
          'ValidationFault',
          'Invalid date',
          `${what} ${value} is not a date`,
          '2040',
        );
      return value;
    };
    switch (name) {
      case 'TrialBalance':
        return this.trialBalance(realm, day(query.end_date, 'end_date'));
      case 'AgedReceivableDetail':
        return this.agingDetail(realm, 'receivable', day(query.report_date, 'report_date'));
      case 'AgedPayableDetail':
        return this.agingDetail(realm, 'payable', day(query.report_date, 'report_date'));
      default:
        throw new FaultError(400, 'ValidationFault', 'Unsupported Operation', `no report ${name}`, '500');
    }
  }

  private reportHeader(name: string, start: string, end: string, extra: Record<string, unknown> = {}) {
    return {
      Time: now(),
      ReportName: name,
      ...extra,
      ReportBasis: 'Accrual',
      StartPeriod: start,
      EndPeriod: end,
      Currency: 'USD',
      Option: [{ Name: 'NoReportData', Value: 'false' }],
    };
  }

  private trialBalance(realm: Realm, end: string) {
    const yearStart = `${end.slice(0, 4)}-01-01`;
    const accounts = realm.entities.get('Account') as Map<string, Entity>;
    const profitAndLoss = (a: Entity | undefined) =>
      ['Income', 'Other Income', 'Expense', 'Other Expense', 'Cost of Goods Sold'].includes(
        String(a?.AccountType),
      );
    const balances = new Map<string, number>();
    let retained = 0;
    for (const [ref, postings] of realm.postings) {
      const [entity = '', id = ''] = ref.split(':');
      const date = String(realm.entities.get(entity)?.get(id)?.TxnDate ?? '');
      if (date === '' || date > end) continue;
      for (const p of postings) {
        if (profitAndLoss(accounts.get(p.account)) && date < yearStart) retained += p.cents;
        else balances.set(p.account, (balances.get(p.account) ?? 0) + p.cents);
      }
    }
    const rows: Record<string, unknown>[] = [];
    let debits = 0;
    let credits = 0;
    const row = (cells: Record<string, string>, cents: number) => {
      if (cents > 0) debits += cents;
      else credits -= cents;
      rows.push({
        ColData: [cells, { value: cents > 0 ? money(cents) : '' }, { value: cents < 0 ? money(-cents) : '' }],
      });
    };
    for (const [id, cents] of [...balances].sort(([a], [b]) => compare(a, b)))
      if (cents !== 0) row({ value: String(accounts.get(id)?.Name ?? id), id }, cents);
    if (retained !== 0) row({ value: 'Retained Earnings' }, retained);
    rows.push({
      type: 'Section',
      group: 'GrandTotal',
      Summary: { ColData: [{ value: 'TOTAL' }, { value: money(debits) }, { value: money(credits) }] },
    });
    return {
      Header: this.reportHeader('TrialBalance', yearStart, end),
      Columns: {
        Column: [
          { ColTitle: '', ColType: 'Account' },
          { ColTitle: 'Debit', ColType: 'Money' },
          { ColTitle: 'Credit', ColType: 'Money' },
        ],
      },
      Rows: { Row: rows },
    };
  }

  private agingDetail(realm: Realm, side: 'receivable' | 'payable', day: string) {
    const receivable = side === 'receivable';
    const [documentEntity, paymentEntity, partyEntity] = receivable
      ? (['Invoice', 'Payment', 'Customer'] as const)
      : (['Bill', 'BillPayment', 'Vendor'] as const);
    const control = this.accountOfType(realm, receivable ? 'Accounts Receivable' : 'Accounts Payable');
    const partyName = (ref: unknown) =>
      String(realm.entities.get(partyEntity)?.get(refValue(ref))?.DisplayName ?? '');
    const open: { txn: Entity; type: string; party: unknown; total: number; open: number }[] = [];
    for (const doc of realm.entities.get(documentEntity)?.values() ?? []) {
      if (String(doc.TxnDate) > day || realm.voided.has(`${documentEntity}:${doc.Id}`)) continue;
      let applied = 0;
      for (const payment of realm.entities.get(paymentEntity)?.values() ?? []) {
        if (String(payment.TxnDate) > day) continue;
        for (const line of (payment.Line as Record<string, unknown>[] | undefined) ?? []) {
          const links = (line.LinkedTxn as { TxnId: string; TxnType: string }[] | undefined) ?? [];
          if (links.some((l) => l.TxnId === doc.Id && l.TxnType === documentEntity))
            applied += cents(line.Amount);
        }
      }
      const total = cents(doc.TotalAmt);
      const party = receivable ? doc.CustomerRef : doc.VendorRef;
      open.push({ txn: doc, type: documentEntity, party, total, open: total - applied });
    }
    for (const je of realm.entities.get('JournalEntry')?.values() ?? []) {
      if (String(je.TxnDate) > day) continue;
      let sum = 0;
      let party: unknown;
      for (const p of realm.postings.get(`JournalEntry:${je.Id}`) ?? [])
        if (p.account === control) sum += receivable ? p.cents : -p.cents;
      for (const line of (je.Line as Record<string, Record<string, unknown>>[] | undefined) ?? []) {
        const detail = line.JournalEntryLineDetail;
        if (refValue(detail?.AccountRef) === control)
          party = (detail?.Entity as { EntityRef?: unknown } | undefined)?.EntityRef;
      }
      if (sum !== 0) open.push({ txn: je, type: 'Journal Entry', party, total: sum, open: sum });
    }
    const buckets = [
      { title: 'Current', upTo: 0 },
      { title: '1 - 30 days past due', upTo: 30 },
      { title: '31 - 60 days past due', upTo: 60 },
      { title: '61 - 90 days past due', upTo: 90 },
      { title: '91 or more days past due', upTo: Number.POSITIVE_INFINITY },
    ];
    const pastDue = (due: string) =>
      Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${due}T00:00:00Z`)) / 86_400_000);
    const blank = (n: number) => Array.from({ length: n }, () => ({ value: '' }));
    const sections: Record<string, unknown>[] = [];
    let grandTotal = 0;
    let grandOpen = 0;
    let lower = Number.NEGATIVE_INFINITY;
    for (const bucket of buckets) {
      const rows = open
        .filter((o) => o.open !== 0)
        .filter((o) => {
          const days = pastDue(String(o.txn.DueDate ?? o.txn.TxnDate));
          return days > lower && days <= bucket.upTo;
        })
        .sort((a, b) => compare(String(a.txn.TxnDate), String(b.txn.TxnDate)));
      lower = bucket.upTo;
      if (rows.length === 0) continue;
      const total = rows.reduce((s, o) => s + o.total, 0);
      const openSum = rows.reduce((s, o) => s + o.open, 0);
      grandTotal += total;
      grandOpen += openSum;
      sections.push({
        type: 'Section',
        Header: { ColData: [{ value: bucket.title }, ...blank(6)] },
        Rows: {
          Row: rows.map((o) => ({
            type: 'Data',
            ColData: [
              { value: String(o.txn.TxnDate) },
              { value: o.type, id: o.txn.Id },
              { value: String(o.txn.DocNumber ?? '') },
              { value: partyName(o.party), id: refValue(o.party) },
              { value: String(o.txn.DueDate ?? o.txn.TxnDate) },
              { value: money(o.total) },
              { value: money(o.open) },
            ],
          })),
        },
        Summary: {
          ColData: [
            { value: `Total for ${bucket.title}` },
            ...blank(4),
            { value: money(total) },
            { value: money(openSum) },
          ],
        },
      });
    }
    sections.push({
      type: 'Section',
      group: 'GrandTotal',
      Summary: {
        ColData: [{ value: 'TOTAL' }, ...blank(4), { value: money(grandTotal) }, { value: money(grandOpen) }],
      },
    });
    const column = (title: string, type: string, key: string) => ({
      ColTitle: title,
      ColType: type,
      MetaData: [{ Name: 'ColKey', Value: key }],
    });
    const name = receivable ? 'AgedReceivableDetail' : 'AgedPayableDetail';
    return {
      Header: this.reportHeader(name, day, day, { DateMacro: 'today' }),
      Columns: {
        Column: [
          column('Date', 'Date', 'tx_date'),
          column('Transaction Type', 'String', 'txn_type'),
          column('Num', 'String', 'doc_num'),
          receivable ? column('Customer', 'String', 'cust_name') : column('Vendor', 'String', 'vend_name'),
          column('Due Date', 'Date', 'due_date'),
          column('Amount', 'Money', 'subt_amount'),
          column('Open Balance', 'Money', 'subt_open_bal'),
        ],
      },
      Rows: { Row: sections },
    };
  }

  /**
   * QBO's limits per company and app, counted on arrival: 10 at once, 10 a second, 500 a minute, 40 batch
   * requests a minute (a batch is one request of the 500). The name of the limit a request would pass, or null.
   * https://developer.intuit.com/app/developer/qbo/docs/learn/limits-and-throttles
   */
  private overLimit(realm: Realm, batch: boolean): keyof QboLimits | null {
    const now = this.now();
    while (realm.arrivals.length > 0 && (realm.arrivals[0] ?? 0) <= now - 60_000) realm.arrivals.shift();
    while (realm.batchArrivals.length > 0 && (realm.batchArrivals[0] ?? 0) <= now - 60_000)
      realm.batchArrivals.shift();
    const lastSecond = realm.arrivals.filter((t) => t > now - 1_000).length;
    if (on('concurrent') && realm.inFlight >= qboLimits.concurrent) return 'concurrent';
    if (on('per-second') && lastSecond >= qboLimits.perSecond) return 'perSecond';
    if (on('per-minute') && realm.arrivals.length >= qboLimits.perMinute) return 'perMinute';
    if (on('batches-per-minute') && batch && realm.batchArrivals.length >= qboLimits.batchesPerMinute)
      return 'batchesPerMinute';
    realm.arrivals.push(now);
    if (batch) realm.batchArrivals.push(now);
    return null;
  }

  /**
   * One create, update or void, checked against the XSD first (a single request or a batch item). Voids as
   * Intuit documents them: a Payment or BillPayment by `operation=update&include=void` (in a batch:
   * operation update, optionsData void), an Invoice by `operation=void`; `operation=void` on a payment is an
   * unknown operation to QBO.
   */
  private write(
    realm: Realm,
    entity: string,
    operation: string,
    object: Record<string, unknown>,
    include?: string,
  ): Entity {
    const refusal = operation === 'create' ? this.nextCreateRefusals.shift() : undefined;
    if (refusal) throw refusal;
    const problems =
      operation === 'create'
        ? this.contract.checkCreate(entity, object)
        : this.contract.check(object, this.contract.entityType(entity), `$.${entity}`);
    if (problems.length > 0) {
      this.violations.push(...problems.map((p) => `request POST ${entity.toLowerCase()}: ${p}`));
      throw new FaultError(400, 'ValidationFault', 'XSD contract violation', problems.join('; '), '2010');
    }
    if (operation === 'create' || operation === 'update') this.lengthsWithin(object);
    this.outsideClosedBooks(realm, entity, operation, object);
    const voidsByUpdate = entity === 'Payment' || entity === 'BillPayment' || entity === 'SalesReceipt';
    if (operation === 'create') return this.create(realm, entity, object);
    if (operation === 'update' && include === 'void') {
      if (!voidsByUpdate && on('void-operation'))
        throw new FaultError(
          400,
          'ValidationFault',
          'Unsupported Operation',
          `Unknown Operation: include=void on ${entity}`,
          '500',
        );
      return this.void(realm, entity, object);
    }
    if (operation === 'update') return this.update(realm, entity, object);
    if (operation === 'void') {
      if (entity !== 'Invoice' && on('void-operation'))
        throw new FaultError(
          400,
          'ValidationFault',
          'Unsupported Operation',
          `Unknown Operation: void on ${entity}`,
          '500',
        );
      return this.void(realm, entity, object);
    }
    throw new FaultError(400, 'ValidationFault', 'Unsupported Operation', `operation ${operation}`, '500');
  }

  /**
   * `POST /batch`: up to 30 BatchItemRequests (a Query, or an entity with its operation), each answered in a
   * BatchItemResponse with its bId: the entity, a QueryResponse or its own Fault. One request of the limits.
   */
  private batch(realm: Realm, body: unknown) {
    const problems = this.contract.check(body, 'IntuitBatchRequest');
    if (problems.length > 0) {
      this.violations.push(...problems.map((p) => `request POST batch: ${p}`));
      throw new FaultError(400, 'ValidationFault', 'XSD contract violation', problems.join('; '), '2010');
    }
    const items = (body as { BatchItemRequest: Record<string, unknown>[] }).BatchItemRequest;
    if (items.length > 30)
      throw new FaultError(
        400,
        'ValidationFault',
        'Batch size exceeded',
        `${items.length} items, at most 30`,
        '4001',
      );
    realm.batches++;
    const control = new Set(['bId', 'operation', 'optionsData']);
    // The items of one batch do not see each other: its queries read the company as it was before it.
    const mixed =
      on('batch-isolation') &&
      items.some((i) => typeof i.Query === 'string') &&
      items.some((i) => typeof i.Query !== 'string');
    const before = mixed ? structuredClone(realm.entities) : realm.entities;
    const responses = items.map((item) => {
      const bId = String(item.bId ?? '');
      try {
        if (typeof item.Query === 'string') {
          const { QueryResponse } = this.query(realm, item.Query, before);
          return { bId, QueryResponse };
        }
        const entity = Object.keys(item).find((k) => !control.has(k)) ?? '';
        if (!Object.values(entityPaths).includes(entity))
          throw new FaultError(400, 'ValidationFault', 'Unsupported Operation', `no entity ${entity}`, '500');
        const operation = String(item.operation ?? 'create');
        const injected = this.nextFaults.shift();
        if (injected) throw injected;
        const include = item.optionsData === 'void' ? 'void' : undefined;
        return {
          bId,
          [entity]: this.write(realm, entity, operation, item[entity] as Record<string, unknown>, include),
        };
      } catch (error) {
        if (!(error instanceof FaultError)) throw error;
        return { bId, Fault: faultBody(error).Fault };
      }
    });
    return { BatchItemResponse: responses, time: now() };
  }

  /**
   * QBO's query language: `select * from X [where C and C ...] [orderby F [asc|desc]] [startposition n]
   * [maxresults n]`, C = `F op value` with op one of = < > <= >= IN LIKE ('%' only); AND only. A property may
   * be filtered only where Intuit marks it filterable (filterable-fields.ts): anything else is QBO's 4001
   * "property 'F' is not queryable". At most 1000 rows a page, 100 when maxresults is not given.
   */
  private query(realm: Realm, text: string, entities = realm.entities) {
    const match =
      /^select \* from (\w+)(?: where (.+?))?(?: orderby ([\w.]+)(?: (asc|desc))?)?(?: startposition (\d+))?(?: maxresults (\d+))?$/i.exec(
        text.trim(),
      );
    if (!match)
      throw new FaultError(
        400,
        'ValidationFault',
        'Error parsing query',
        `QueryParserError: Encountered an unsupported query: ${text}`,
        '4000',
      );
    const entity = match[1] ?? '';
    const all = entities.get(entity);
    if (!all)
      throw new FaultError(
        400,
        'ValidationFault',
        'Invalid query',
        `QueryValidationError: unknown entity ${entity}`,
        '4001',
      );
    const conditions = parseWhere(match[2] ?? '', text);
    for (const c of conditions) {
      const refused = on('filterable') ? filterRefusal(entity, c.field, c.operator) : null;
      if (refused) throw new FaultError(400, 'ValidationFault', 'Invalid query', refused, '4001');
    }
    const rows = [...all.values()].filter((e) =>
      conditions.every((c) => satisfies(fieldValue(e, c.field), c)),
    );
    const orderBy = match[3] ?? 'Id';
    const direction = (match[4] ?? 'asc').toLowerCase() === 'desc' ? -1 : 1;
    rows.sort((x, y) => direction * compare(fieldValue(x, orderBy), fieldValue(y, orderBy)));
    const start = Math.max(Number(match[5] ?? 1), 1);
    const page = rows.slice(start - 1, start - 1 + Math.min(Number(match[6] ?? 100), 1000));
    return {
      QueryResponse: page.length > 0 ? { [entity]: page, startPosition: start, maxResults: page.length } : {},
      time: now(),
    };
  }

  private create(realm: Realm, entity: string, object: Record<string, unknown>): Entity {
    realm.creates++;
    const body = structuredClone(object);
    if (nameEntities.includes(entity)) this.uniqueName(realm, entity, body.DisplayName, null);
    if (entity === 'Payment') {
      this.appliedWithinBalance(realm, body, 'Invoice');
      this.creditWithinBalance(realm, body);
    }
    if (entity === 'BillPayment') {
      this.appliedWithinBalance(realm, body, 'Bill');
      this.paysFromBankOrCard(realm, body);
    }
    if (entity === 'Deposit') this.depositRules(realm, body);
    // A Deposit's TotalAmt is "Calculated by QuickBooks business logic; any value you supply is over-written
    // by QuickBooks" (Intuit's Deposit reference): the sum of its lines, linked and manual.
    if (entity === 'Deposit' && on('deposit-total')) body.TotalAmt = amount(this.lineTotal(body, entity));
    // QBO numbers a journal's lines (Id "0", "1", ... in Intuit's JournalEntry samples); a Deposit links a
    // journal's line in Undeposited Funds by that Id (LinkedTxn.TxnLineId).
    if (entity === 'JournalEntry')
      for (const [i, line] of ((body.Line as Record<string, unknown>[] | undefined) ?? []).entries())
        line.Id ??= String(i);
    if (entity === 'SalesReceipt')
      this.depositAccountRules(realm, body, 'sales receipt', 'salesreceipt-account');
    if (entity === 'Payment') this.depositAccountRules(realm, body, 'payment', 'payment-account');
    if (entity === 'JournalEntry') this.journalNamesParties(realm, body);
    if (taxedEntities.has(entity)) this.salesTax(realm, body);
    if (
      entity === 'Invoice' ||
      entity === 'Bill' ||
      entity === 'Payment' ||
      entity === 'BillPayment' ||
      entity === 'SalesReceipt' ||
      entity === 'RefundReceipt' ||
      entity === 'CreditMemo'
    ) {
      body.TotalAmt = amount(this.lineTotal(body, entity));
    }
    if (entity === 'Invoice' || entity === 'Bill') body.Balance = body.TotalAmt;
    // A payment's UnappliedAmt: "the amount that has not been applied to pay amounts owed for sales
    // transactions" (Finance.xsd, Payment), its TotalAmt less its lines: the customer's credit.
    if (entity === 'Payment') {
      const lines = (body.Line as Record<string, unknown>[] | undefined) ?? [];
      body.UnappliedAmt = amount(cents(body.TotalAmt) - lines.reduce((s, l) => s + cents(l.Amount ?? 0), 0));
    }
    // A credit memo's Balance and RemainingCredit: the credit not yet applied to an invoice by a payment.
    if (entity === 'CreditMemo') {
      body.Balance = body.TotalAmt;
      body.RemainingCredit = body.TotalAmt;
    }
    // A sales receipt is paid when made: nothing is owed on it.
    if (entity === 'SalesReceipt') body.Balance = 0;
    if (entity === 'Invoice' && on('duplicate-docnumber')) {
      const dup = this.all(realm.id, 'Invoice').some(
        (e) => e.DocNumber === body.DocNumber && body.DocNumber !== undefined,
      );
      if (dup)
        throw new FaultError(
          400,
          'ValidationFault',
          'Duplicate Document Number Error',
          `Duplicate Document Number Error : You must specify a different number. This number has already been used. DocNumber=${body.DocNumber}`,
          '6140',
        );
    }
    const postings = this.postingsOf(realm, entity, body);
    const stored = this.store(realm, entity, body);
    if (postings) realm.postings.set(`${entity}:${stored.Id}`, postings);
    this.settle(realm);
    return stored;
  }

  /**
   * QBO refuses, through the API, a create, update, void or delete of a transaction dated on or before the
   * books closing date, and a change of an existing one dated so (Intuit's error codes: 6200 "Account Period
   * Closed", 6210 with a closing password; the message as integrators meet it). A transaction without TxnDate
   * is dated today by QBO.
   */
  private outsideClosedBooks(
    realm: Realm,
    entity: string,
    operation: string,
    object: Record<string, unknown>,
  ) {
    if (!on('books-closed') || !transactionEntities.has(entity)) return;
    const closed = this.closingDate(realm);
    if (closed === null) return;
    const dates: string[] = [];
    if (operation === 'create') dates.push(String(object.TxnDate ?? now().slice(0, 10)));
    else {
      const current = realm.entities.get(entity)?.get(String(object.Id));
      if (current?.TxnDate !== undefined) dates.push(String(current.TxnDate));
      if (object.TxnDate !== undefined) dates.push(String(object.TxnDate));
    }
    if (dates.some((d) => d.slice(0, 10) <= closed)) throw closedBooksFault(realm.closedBooksCode);
  }

  private preferences(realm: Realm): Entity {
    const [preferences] = realm.entities.get('Preferences')?.values() ?? [];
    if (!preferences) throw new Error(`realm ${realm.id} has no Preferences`);
    return preferences;
  }

  private closingDate(realm: Realm): string | null {
    const prefs = this.preferences(realm).AccountingInfoPrefs as { BookCloseDate?: unknown } | undefined;
    return typeof prefs?.BookCloseDate === 'string' ? prefs.BookCloseDate.slice(0, 10) : null;
  }

  /**
   * A sales line's TaxCodeRef names one of the company's tax codes (2500 otherwise); a company on automated
   * sales tax taxes the lines sent without a non-taxable one (sales-tax.ts, rule `automated-sales-tax`).
   */
  private salesTax(realm: Realm, body: Record<string, unknown>) {
    const codes = realm.entities.get('TaxCode');
    for (const line of (body.Line as Record<string, unknown>[] | undefined) ?? []) {
      const ref = (line.SalesItemLineDetail as Record<string, unknown> | undefined)?.TaxCodeRef;
      if (ref !== undefined) this.requireRef(realm, 'TaxCode', ref, 'TaxCode');
    }
    if (!realm.automatedSalesTax || !on('automated-sales-tax')) return;
    applyAutomatedSalesTax(body, realm.automatedSalesTax, (code) => codes?.get(code)?.Taxable === true);
  }

  /**
   * A string longer than QBO allows is refused (2050; the Fault as QBO gives it in ruby/quickbooks-ruby#436).
   */
  private lengthsWithin(object: Record<string, unknown>) {
    if (!on('string-length')) return;
    for (const [field, max] of Object.entries(maxLengths)) {
      const value = object[field];
      if (typeof value === 'string' && value.length > max)
        throw new FaultError(
          400,
          'ValidationFault',
          'String length is either shorter or longer than supported by specification',
          `String length specified does not match the supported length. Min:0 Max:${max} supported. Supplied length:${value.length}`,
          '2050',
        );
    }
  }

  /**
   * DisplayName is unique across customers, vendors and employees (6240, the message as QBO gives it in
   * intuit/QuickBooks-V3-PHP-SDK#241).
   */
  private uniqueName(realm: Realm, own: string, displayName: unknown, self: string | null) {
    if (typeof displayName !== 'string') return;
    const taken = (on('display-name') ? nameEntities : [own]).some((entity) =>
      this.all(realm.id, entity).some(
        (e) =>
          `${entity}:${e.Id}` !== self && String(e.DisplayName).toLowerCase() === displayName.toLowerCase(),
      ),
    );
    if (taken)
      throw new FaultError(
        400,
        'ValidationFault',
        'Duplicate Name Exists Error',
        'The name supplied already exists. : Another customer, vendor or employee is already using this name. Please use a different name.',
        '6240',
      );
  }

  /** A payment applies at most the open Balance of each invoice (bill) it links, and none to a voided one. */
  private appliedWithinBalance(realm: Realm, body: Record<string, unknown>, target: 'Invoice' | 'Bill') {
    const applied = new Map<string, number>();
    for (const line of (body.Line as Record<string, unknown>[] | undefined) ?? [])
      for (const link of (line.LinkedTxn as { TxnId: string; TxnType: string }[] | undefined) ?? [])
        if (link.TxnType === target)
          applied.set(link.TxnId, (applied.get(link.TxnId) ?? 0) + cents(line.Amount));
    for (const [id, paid] of applied) {
      const doc = realm.entities.get(target)?.get(id);
      if (!doc) continue; // postingsOf answers the missing reference
      if (realm.voided.has(`${target}:${id}`) && on('voided-invoice'))
        throw businessRule(
          `The ${target.toLowerCase()} ${doc.DocNumber ?? id} is voided: a payment cannot be applied to it.`,
        );
      if (paid > cents(doc.Balance) && on('within-balance'))
        throw businessRule(
          `The payment applies ${amount(paid)} to ${target.toLowerCase()} ${doc.DocNumber ?? id}, more than its open balance of ${amount(cents(doc.Balance))}.`,
        );
    }
  }

  /**
   * A payment applies at most a credit memo's Balance (its RemainingCredit) of each credit memo it links, of
   * the payment's own customer, and none of a voided one.
   */
  private creditWithinBalance(realm: Realm, body: Record<string, unknown>) {
    const applied = new Map<string, number>();
    for (const line of (body.Line as Record<string, unknown>[] | undefined) ?? [])
      for (const link of (line.LinkedTxn as { TxnId: string; TxnType: string }[] | undefined) ?? [])
        if (link.TxnType === 'CreditMemo')
          applied.set(link.TxnId, (applied.get(link.TxnId) ?? 0) + cents(line.Amount));
    for (const [id, credit] of applied) {
      const memo = realm.entities.get('CreditMemo')?.get(id);
      if (!memo || !on('credit-within-balance')) continue; // postingsOf answers the missing reference
      if (refValue(memo.CustomerRef) !== refValue(body.CustomerRef))
        throw businessRule(`The credit memo ${memo.DocNumber ?? id} belongs to another customer.`);
      if (credit > cents(memo.Balance))
        throw businessRule(
          `The payment applies ${amount(credit)} of credit memo ${memo.DocNumber ?? id}, more than its remaining credit of ${amount(cents(memo.Balance))}.`,
        );
    }
  }

  /** A BillPayment by check pays from a Bank account, by credit card from a Credit Card account. */
  private paysFromBankOrCard(realm: Realm, body: Record<string, unknown>) {
    const byCard = body.PayType === 'CreditCard';
    const ref = byCard
      ? (body.CreditCardPayment as Record<string, unknown> | undefined)?.CCAccountRef
      : (body.CheckPayment as Record<string, unknown> | undefined)?.BankAccountRef;
    const account = realm.entities.get('Account')?.get(refValue(ref));
    const wanted = byCard ? 'Credit Card' : 'Bank';
    if (account && account.AccountType !== wanted && on('billpayment-account'))
      throw businessRule(
        `A bill payment by ${byCard ? 'credit card' : 'check'} must be paid from a ${wanted} account; ${String(account.Name)} is ${String(account.AccountType)}.`,
      );
  }

  /**
   * A Deposit goes into a Bank or Other Current Asset account; each linked line links a transaction of a type
   * Intuit lists, that put its money in Undeposited Funds, for that amount, and once (deposits.ts).
   */
  private depositRules(realm: Realm, body: Record<string, unknown>, updated?: string) {
    const account = realm.entities.get('Account')?.get(refValue(body.DepositToAccountRef));
    if (
      account &&
      account.AccountType !== 'Bank' &&
      account.AccountType !== 'Other Current Asset' &&
      on('deposit-account')
    )
      throw businessRule(
        `A deposit must go into a Bank or Other Current Asset account; ${String(account.Name)} is ${String(account.AccountType)}.`,
      );
    const db = this.entitiesOf(realm);
    const undeposited = this.accountOfType(realm, 'UndepositedFunds');
    const deposited = depositedKeys(db, updated);
    for (const link of depositLinks(body)) {
      const what = `${link.type} ${link.id}${link.type === 'JournalEntry' ? ` line ${link.lineId}` : ''}`;
      if (!depositableTypes.includes(link.type) && on('deposit-linked-type'))
        throw businessRule(
          `A deposit links a Transfer, Payment, SalesReceipt, RefundReceipt or JournalEntry; not ${link.type}.`,
        );
      const funds = linkedFunds(db, link, undeposited);
      if (!realm.entities.get(link.type)?.get(link.id) || (link.type === 'JournalEntry' && !funds))
        throw businessRule(`${what} does not exist: a deposit links received money only.`);
      if (funds && funds.account !== undeposited && on('deposit-undeposited'))
        throw businessRule(`${what} is not in Undeposited Funds: only funds there can be deposited.`);
      if (funds && funds.cents !== link.cents && on('deposit-amount'))
        throw businessRule(
          `${what} put ${amount(funds.cents)} in Undeposited Funds; the deposit line says ${amount(link.cents)}.`,
        );
      const key = fundsKey(link.type, link.id, link.lineId);
      if (deposited.has(key) && on('deposit-once')) throw businessRule(`${what} is already deposited.`);
      deposited.add(key);
    }
  }

  /** The realm's entities as deposits.ts reads them. */
  private entitiesOf(realm: Realm): Entities {
    return {
      get: (entity, id) => realm.entities.get(entity)?.get(id),
      all: (entity) => realm.entities.get(entity)?.values() ?? [],
      voided: (entity, id) => realm.voided.has(`${entity}:${id}`),
    };
  }

  /**
   * QuickBooks' list of funds to deposit (the bank deposit screen's "Select the payments included in this
   * deposit"): what payments, sales receipts, refund receipts, journal lines and transfers put in (or took out
   * of) Undeposited Funds that no deposit links yet, each with its amount in cents.
   */
  fundsToDeposit(realmId: string): { type: string; id: string; lineId: string; cents: number }[] {
    const realm = this.realm(realmId);
    return fundsToDeposit(this.entitiesOf(realm), this.accountOfType(realm, 'UndepositedFunds')).map(
      ({ type, id, lineId, cents }) => ({ type, id, lineId, cents }),
    );
  }

  /**
   * A SalesReceipt or Payment deposits into an asset account, Bank or Other Current Asset (Undeposited Funds
   * when none is named), never into a liability such as Unapplied Cash: Finance.xsd
   * SalesTransaction.DepositToAccountRef, "Asset account where the payment money is deposited. If you do not
   * specify this account, QBO uses the Undeposited Funds account. Supported for Payment and SalesReceipt
   * only"; Intuit's SalesReceipt and Payment references. The Fault's wording is the double's.
   */
  private depositAccountRules(
    realm: Realm,
    body: Record<string, unknown>,
    what: 'sales receipt' | 'payment',
    rule: 'salesreceipt-account' | 'payment-account',
  ) {
    if (body.DepositToAccountRef === undefined) return;
    const account = realm.entities.get('Account')?.get(refValue(body.DepositToAccountRef));
    if (
      account &&
      account.AccountType !== 'Bank' &&
      account.AccountType !== 'Other Current Asset' &&
      on(rule)
    )
      throw businessRule(
        `A ${what} must be deposited to a Bank or Other Current Asset account; ${String(account.Name)} is ${String(account.AccountType)}.`,
      );
  }

  /** A journal line on Accounts Receivable names a customer, on Accounts Payable a vendor. */
  private journalNamesParties(realm: Realm, body: Record<string, unknown>) {
    for (const line of (body.Line as Record<string, Record<string, unknown>>[] | undefined) ?? []) {
      const detail = line.JournalEntryLineDetail;
      const account = realm.entities.get('Account')?.get(refValue(detail?.AccountRef));
      const party = detail?.Entity as { Type?: string; EntityRef?: unknown } | undefined;
      if (!on('journal-parties')) continue;
      if (account?.AccountType === 'Accounts Receivable' && party?.Type !== 'Customer')
        throw businessRule('When you use Accounts Receivable, you must choose a customer in the Name field.');
      if (account?.AccountType === 'Accounts Payable' && party?.Type !== 'Vendor')
        throw businessRule('When you use Accounts Payable, you must select a vendor in the Name field.');
      if (party?.Type) this.requireRef(realm, party.Type, party.EntityRef, party.Type);
    }
  }

  /**
   * An update (a sparse one included) of a voided transaction is refused (`voided-update`): Intuit documents
   * the void, not any change after it, so the double holds the conservative reading; the Fault's wording is
   * the double's.
   */
  private update(realm: Realm, entity: string, object: Record<string, unknown>): Entity {
    const current = this.current(realm, entity, object);
    if (realm.voided.has(`${entity}:${current.Id}`) && on('voided-update'))
      throw businessRule(`${entity} ${current.Id} is voided: a voided transaction cannot be changed.`);
    if (nameEntities.includes(entity) && object.DisplayName !== undefined)
      this.uniqueName(realm, entity, object.DisplayName, `${entity}:${current.Id}`);
    const next = { ...(object.sparse === true ? current : {}), ...structuredClone(object) } as Entity;
    next.SyncToken = String(Number(current.SyncToken) + 1);
    next.MetaData = { ...(current.MetaData as object), LastUpdatedTime: now() };
    next.sparse = false;
    next.domain = 'QBO';
    // A Deposit updated is held to the rules of one created (its lines as sent replace its own), its
    // TotalAmt and postings made again of them.
    if (entity === 'Deposit') {
      this.depositRules(realm, next, current.Id);
      if (on('deposit-total')) next.TotalAmt = amount(this.lineTotal(next, entity));
      const postings = this.postingsOf(realm, entity, next);
      if (postings) realm.postings.set(`${entity}:${current.Id}`, postings);
    }
    realm.entities.get(entity)?.set(current.Id, next);
    return next;
  }

  /**
   * A void keeps the record with its amounts zeroed and "Voided" prefixed to its PrivateNote; the body's own
   * note and lines are not taken (Intuit: "all amounts and quantities are zeroed and the string, Voided, is
   * injected into Payment.PrivateNote, prepended to existing text if present"). Its postings leave the books
   * and the balances it paid reopen. A deposited payment is refused (6540) until its deposit is removed; an
   * invoice with payments applied is refused.
   */
  private void(realm: Realm, entity: string, object: Record<string, unknown>): Entity {
    const current = this.current(realm, entity, object);
    const received = entity === 'Payment' || entity === 'SalesReceipt';
    if (
      received &&
      on('deposited-void') &&
      depositedKeys(this.entitiesOf(realm)).has(`${entity}:${current.Id}`)
    ) {
      throw new FaultError(
        400,
        'ValidationFault',
        'Deposited Transaction cannot be changed',
        'Deposited Transaction cannot be changed: this payment is on a deposit. Edit the deposit it appears on and remove it first.',
        '6540',
      );
    }
    if (
      entity === 'Invoice' &&
      on('invoice-void-applied') &&
      cents(current.Balance) !== cents(current.TotalAmt)
    ) {
      throw new FaultError(
        400,
        'ValidationFault',
        'Business Validation Error',
        'You cannot void an invoice that has payments applied to it. Remove the payments first.',
        '6000',
      );
    }
    const lines = ((current.Line as Record<string, unknown>[] | undefined) ?? []).map((l) => ({
      ...l,
      Amount: 0,
    }));
    const note = typeof current.PrivateNote === 'string' && current.PrivateNote ? current.PrivateNote : '';
    const voided = {
      ...current,
      PrivateNote: on('void-note')
        ? note
          ? `Voided ${note}`
          : 'Voided'
        : typeof object.PrivateNote === 'string'
          ? object.PrivateNote
          : note,
      TotalAmt: 0,
      Line: lines,
      SyncToken: String(Number(current.SyncToken) + 1),
      MetaData: { ...(current.MetaData as object), LastUpdatedTime: now() },
    } as Entity;
    if ('Balance' in current) voided.Balance = 0;
    if ('UnappliedAmt' in current) voided.UnappliedAmt = 0;
    realm.entities.get(entity)?.set(current.Id, voided);
    realm.voided.add(`${entity}:${current.Id}`);
    realm.postings.delete(`${entity}:${current.Id}`);
    this.settle(realm);
    return voided;
  }

  private current(realm: Realm, entity: string, object: Record<string, unknown>): Entity {
    const current = realm.entities.get(entity)?.get(String(object.Id));
    if (!current)
      throw new FaultError(
        400,
        'ValidationFault',
        'Object Not Found',
        `Object Not Found : Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees. ${entity} ${object.Id}`,
        '610',
      );
    const staleKey = `${realm.id}:${entity}:${current.Id}`;
    if (this.stale.delete(staleKey)) current.SyncToken = String(Number(current.SyncToken) + 1);
    if (String(object.SyncToken) !== current.SyncToken && on('stale-synctoken')) {
      throw new FaultError(
        400,
        'ValidationFault',
        'Stale Object Error',
        `Stale Object Error : You and another user were working on the same thing. Please try again. SyncToken ${object.SyncToken} is not ${current.SyncToken}`,
        '5010',
      );
    }
    return current;
  }

  private lineTotal(body: Record<string, unknown>, entity: string): number {
    const lines = (body.Line as Record<string, unknown>[] | undefined) ?? [];
    if ((entity === 'Payment' || entity === 'BillPayment') && body.TotalAmt !== undefined)
      return cents(body.TotalAmt);
    // A sales transaction's total is its lines and the tax on them (TxnTaxDetail.TotalTax).
    return lines.reduce((s, l) => s + cents(l.Amount ?? 0), 0) + taxOf(body);
  }

  /**
   * Invoice, bill and credit memo balances: TotalAmt less what the live payments linked to them apply (a
   * credit memo's line on a payment is the credit applied; its RemainingCredit follows its Balance).
   */
  private settle(realm: Realm) {
    for (const [target, payer] of [
      ['Invoice', 'Payment'],
      ['CreditMemo', 'Payment'],
      ['Bill', 'BillPayment'],
    ] as const) {
      for (const doc of realm.entities.get(target)?.values() ?? []) {
        let applied = 0;
        for (const payment of realm.entities.get(payer)?.values() ?? []) {
          for (const line of (payment.Line as Record<string, unknown>[] | undefined) ?? []) {
            const links = (line.LinkedTxn as { TxnId: string; TxnType: string }[] | undefined) ?? [];
            if (links.some((l) => l.TxnId === doc.Id && l.TxnType === target)) applied += cents(line.Amount);
          }
        }
        const balance = amount(cents(doc.TotalAmt) - applied);
        // A payment applied or voided changes the invoice (bill) too: its SyncToken moves.
        if (doc.Balance !== balance) doc.SyncToken = String(Number(doc.SyncToken) + 1);
        doc.Balance = balance;
        if (target === 'CreditMemo') doc.RemainingCredit = balance;
      }
    }
  }

  private accountId(realm: Realm, ref: unknown, what: string): string {
    const id = refValue(ref);
    if (!realm.entities.get('Account')?.has(id))
      throw new FaultError(
        400,
        'ValidationFault',
        'Invalid Reference Id',
        `Invalid Reference Id : Accounts element id ${id} not found (${what})`,
        '2500',
      );
    return id;
  }

  private accountOfType(realm: Realm, type: string): string {
    const account = this.all(realm.id, 'Account').find(
      (a) => a.AccountType === type || a.AccountSubType === type,
    );
    if (!account) throw new Error(`no ${type} account`);
    return account.Id;
  }

  private requireRef(realm: Realm, entity: string, ref: unknown, what: string) {
    if (!realm.entities.get(entity)?.has(refValue(ref))) {
      throw new FaultError(
        400,
        'ValidationFault',
        'Invalid Reference Id',
        `Invalid Reference Id : ${what} ${refValue(ref)} not found`,
        '2500',
      );
    }
  }

  /**
   * Each sales line posts its amount to its item's income account (sign -1 credits it, 1 debits it); an unknown
   * item is QBO's 2500. Returns the lines' sum in cents.
   */
  private postItemLines(
    realm: Realm,
    lines: Record<string, Record<string, unknown>>[],
    sign: 1 | -1,
    out: Posting[],
  ): number {
    let sum = 0;
    for (const l of lines) {
      const item = realm.entities.get('Item')?.get(refValue(l.SalesItemLineDetail?.ItemRef));
      if (!item)
        throw new FaultError(
          400,
          'ValidationFault',
          'Invalid Reference Id',
          'Invalid Reference Id : Item not found',
          '2500',
        );
      sum += cents(l.Amount);
      out.push({ account: refValue(item.IncomeAccountRef), cents: sign * cents(l.Amount) });
    }
    return sum;
  }

  /** The double-entry postings QBO makes of a transaction (debit positive); they must balance. */
  private postingsOf(realm: Realm, entity: string, body: Record<string, unknown>): Posting[] | null {
    const lines = (body.Line as Record<string, Record<string, unknown>>[] | undefined) ?? [];
    const out: Posting[] = [];
    const total = cents(body.TotalAmt ?? lines.reduce((s, l) => s + cents(l.Amount) / 100, 0));
    switch (entity) {
      case 'Invoice': {
        this.requireRef(realm, 'Customer', body.CustomerRef, 'Customer');
        out.push({ account: this.accountOfType(realm, 'Accounts Receivable'), cents: total });
        this.postItemLines(realm, lines, -1, out);
        this.taxPosting(realm, body, out, -1);
        break;
      }
      case 'Payment': {
        this.requireRef(realm, 'Customer', body.CustomerRef, 'Customer');
        const deposit = body.DepositToAccountRef
          ? this.accountId(realm, body.DepositToAccountRef, 'DepositToAccountRef')
          : this.accountOfType(realm, 'UndepositedFunds');
        for (const l of lines)
          for (const link of (l.LinkedTxn as unknown as { TxnId: string; TxnType: string }[]) ?? []) {
            const linked = link.TxnType === 'CreditMemo' ? 'CreditMemo' : 'Invoice';
            this.requireRef(realm, linked, { value: link.TxnId }, linked);
          }
        out.push(
          { account: deposit, cents: total },
          { account: this.accountOfType(realm, 'Accounts Receivable'), cents: -total },
        );
        break;
      }
      case 'Deposit': {
        out.push({
          account: this.accountId(realm, body.DepositToAccountRef, 'DepositToAccountRef'),
          cents: total,
        });
        const db = this.entitiesOf(realm);
        const undeposited = this.accountOfType(realm, 'UndepositedFunds');
        for (const l of lines) {
          // A linked line takes the transaction's money out of the account it went to (Undeposited Funds).
          const [link] = depositLinks({ Line: [l] });
          const funds = link ? linkedFunds(db, link, undeposited) : undefined;
          if (link && !funds) this.requireRef(realm, link.type, { value: link.id }, link.type);
          const from = funds
            ? funds.account
            : this.accountId(realm, l.DepositLineDetail?.AccountRef, 'DepositLineDetail');
          out.push({ account: from, cents: -cents(l.Amount) });
        }
        break;
      }
      case 'JournalEntry': {
        for (const l of lines) {
          const d = l.JournalEntryLineDetail;
          const sign = d?.PostingType === 'Debit' ? 1 : -1;
          out.push({
            account: this.accountId(realm, d?.AccountRef, 'JournalEntryLineDetail'),
            cents: sign * cents(l.Amount),
          });
        }
        break;
      }
      case 'Purchase':
      case 'Bill': {
        const credit =
          entity === 'Bill'
            ? this.accountOfType(realm, 'Accounts Payable')
            : this.accountId(realm, body.AccountRef, 'AccountRef');
        if (entity === 'Bill') this.requireRef(realm, 'Vendor', body.VendorRef, 'Vendor');
        let sum = 0;
        for (const l of lines) {
          sum += cents(l.Amount);
          out.push({
            account: this.accountId(
              realm,
              l.AccountBasedExpenseLineDetail?.AccountRef,
              'AccountBasedExpenseLineDetail',
            ),
            cents: cents(l.Amount),
          });
        }
        out.push({ account: credit, cents: -sum });
        break;
      }
      case 'SalesReceipt': {
        // The customer is optional on a sales receipt; one named must exist.
        if (body.CustomerRef !== undefined) this.requireRef(realm, 'Customer', body.CustomerRef, 'Customer');
        const deposit = body.DepositToAccountRef
          ? this.accountId(realm, body.DepositToAccountRef, 'DepositToAccountRef')
          : this.accountOfType(realm, 'UndepositedFunds');
        const sum = this.postItemLines(realm, lines, -1, out);
        this.taxPosting(realm, body, out, -1);
        out.push({ account: deposit, cents: sum + taxOf(body) });
        break;
      }
      case 'CreditMemo': {
        // Dr each line's item income account / Cr Accounts Receivable: the customer owes less.
        this.requireRef(realm, 'Customer', body.CustomerRef, 'Customer');
        const sum = this.postItemLines(realm, lines, 1, out);
        out.push({ account: this.accountOfType(realm, 'Accounts Receivable'), cents: -sum });
        break;
      }
      case 'RefundReceipt': {
        const sum = this.postItemLines(realm, lines, 1, out);
        this.taxPosting(realm, body, out, 1);
        out.push({
          account: this.accountId(realm, body.DepositToAccountRef, 'DepositToAccountRef'),
          cents: -(sum + taxOf(body)),
        });
        break;
      }
      case 'BillPayment': {
        this.requireRef(realm, 'Vendor', body.VendorRef, 'Vendor');
        const check = body.CheckPayment as Record<string, unknown> | undefined;
        out.push(
          { account: this.accountOfType(realm, 'Accounts Payable'), cents: total },
          { account: this.accountId(realm, check?.BankAccountRef, 'BankAccountRef'), cents: -total },
        );
        break;
      }
      default:
        return null;
    }
    const balance = out.reduce((s, p) => s + p.cents, 0);
    if (balance !== 0)
      throw new FaultError(
        400,
        'ValidationFault',
        'Transaction does not balance',
        `${entity} debits and credits differ by ${balance} cents`,
        '6000',
      );
    return out;
  }

  /** A sales transaction's tax, owed to the tax agency: credited on a sale (sign -1), debited on a refund. */
  private taxPosting(realm: Realm, body: Record<string, unknown>, out: Posting[], sign: 1 | -1) {
    const tax = taxOf(body);
    if (tax === 0) return;
    const account = realm.automatedSalesTax?.accountId ?? this.accountOfType(realm, 'SalesTaxPayable');
    out.push({ account, cents: sign * tax });
  }

  private store(realm: Realm, entity: string, body: Record<string, unknown>, givenId?: string): Entity {
    const id = givenId ?? String(realm.nextId++);
    const stored = {
      ...body,
      Id: id,
      SyncToken: '0',
      domain: 'QBO',
      sparse: false,
      MetaData: { CreateTime: now(), LastUpdatedTime: now() },
    } as Entity;
    const problems = this.contract.check(stored, this.contract.entityType(entity), `$.${entity}`);
    if (problems.length > 0)
      throw new Error(`the double stores an invalid ${entity}: ${problems.join('; ')}`);
    realm.entities.get(entity)?.set(id, stored);
    return stored;
  }

  private realm(realmId: string): Realm {
    const realm = this.realms.get(realmId);
    if (!realm) throw new Error(`no realm ${realmId}`);
    return realm;
  }

  /** An answer held to the XSD: an IntuitResponse, or a report's `Report` (Report.xsd) as QBO sends it. */
  private send(
    reply: FastifyReply,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    schema = 'IntuitResponse',
  ) {
    const problems = this.contract.check(body, status === 200 ? schema : 'IntuitResponse');
    if (problems.length > 0) {
      this.violations.push(...problems.map((p) => `response: ${p}`));
      return reply
        .code(500)
        .send({ doubleError: `the double's response breaks the XSD: ${problems.join('; ')}` });
    }
    return reply.code(status).headers(headers).type('application/json').send(body);
  }

  private fault(reply: FastifyReply, fault: FaultError, headers: Record<string, string> = {}) {
    return this.send(reply, fault.status, faultBody(fault), headers);
  }
}

/** QBO's answer to a business rule: 400 ValidationFault, code 6000, the rule in Detail. */
function businessRule(detail: string): FaultError {
  return new FaultError(
    400,
    'ValidationFault',
    'A business validation error has occurred while processing your request',
    `Business Validation Error: ${detail}`,
    '6000',
  );
}

function faultBody(fault: FaultError) {
  return {
    Fault: {
      Error: [{ Message: fault.qboMessage, Detail: fault.detail, code: fault.code }],
      type: fault.type,
    },
    time: now(),
  };
}

/** A property's value as a query compares it: a reference by its value, an email address by its Address. */
function fieldValue(entity: Entity, field: string): string | undefined {
  let value: unknown = entity;
  for (const part of field.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
  if (value && typeof value === 'object' && 'value' in value) value = (value as { value: unknown }).value;
  if (field === 'PrimaryEmailAddr')
    value = (entity.PrimaryEmailAddr as { Address?: string } | undefined)?.Address;
  return value === undefined ? undefined : String(value);
}

type Condition = { field: string; operator: QueryOperator; values: string[] };

/** `F op 'v' and G IN ('a', 'b') and H > 10`: QBO's WHERE clause (AND only). */
function parseWhere(where: string, text: string): Condition[] {
  const conditions: Condition[] = [];
  const quoted = String.raw`'(?:[^'\\]|\\.)*'`;
  const one = new RegExp(
    String.raw`^\s*([\w.]+)\s*(<=|>=|=|<|>|in\b|like\b)\s*(${quoted}|\((?:\s*${quoted}\s*,?)*\)|[\w.:+-]+)\s*(?:and\b|$)`,
    'i',
  );
  let rest = where.trim();
  while (rest.length > 0) {
    const m = one.exec(rest);
    if (!m)
      throw new FaultError(
        400,
        'ValidationFault',
        'Error parsing query',
        `QueryParserError: Encountered an unsupported condition in ${text}`,
        '4000',
      );
    const raw = m[3] ?? '';
    const values = raw.startsWith('(')
      ? [...raw.matchAll(new RegExp(quoted, 'g'))].map((v) => unquote(v[0]))
      : [raw.startsWith("'") ? unquote(raw) : raw];
    conditions.push({ field: m[1] ?? '', operator: (m[2] ?? '').toUpperCase() as QueryOperator, values });
    rest = rest.slice(m[0].length).trim();
  }
  return conditions;
}

function unquote(value: string): string {
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}

function compare(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  const x = Number(a);
  const y = Number(b);
  if (a.trim() !== '' && b.trim() !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return a < b ? -1 : a > b ? 1 : 0;
}

function satisfies(actual: string | undefined, c: Condition): boolean {
  const [value = ''] = c.values;
  switch (c.operator) {
    case '=':
      return actual !== undefined && compare(actual, value) === 0;
    case 'IN':
      return actual !== undefined && c.values.some((v) => compare(actual, v) === 0);
    case 'LIKE': {
      const pattern = value
        .split('%')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*');
      return actual !== undefined && new RegExp(`^${pattern}$`, 'is').test(actual);
    }
    case '<':
      return actual !== undefined && compare(actual, value) < 0;
    case '>':
      return actual !== undefined && compare(actual, value) > 0;
    case '<=':
      return actual !== undefined && compare(actual, value) <= 0;
    case '>=':
      return actual !== undefined && compare(actual, value) >= 0;
  }
}

/**
 * QBO's refusal of a write into closed books. `6200`: "Account Period Closed Error" on Intuit's error codes
 * page (https://developer.intuit.com/app/developer/qbo/docs/develop/troubleshooting/error-codes); Message and
 * Detail as integrators quote QBO (Recurly: "Account Period Closed, Cannot Update Through Services API";
 * AutoEntry, LeanLaw, Bill.com: "The account period has closed and the account books cannot be updated
 * through the QBO Services API. Please use the QBO website to make these changes."). `5010`: as QBO answered a
 * Bill and an Invoice create (routablehq/python-quickbooks#208: code 5010, message "Account Period Closed",
 * detail "The account period has closed. {1}"), the code Intuit's list gives the Stale Object Error.
 */
export function closedBooksFault(code: ClosedBooksCode = '6200'): FaultError {
  if (code === '5010')
    return new FaultError(
      400,
      'ValidationFault',
      'Account Period Closed',
      'The account period has closed. {1}',
      '5010',
    );
  return new FaultError(
    400,
    'ValidationFault',
    'Account Period Closed, Cannot Update Through Services API',
    'The account period has closed and the account books cannot be updated through the QBO Services API. Please use the QBO website to make these changes.',
    '6200',
  );
}

/** QBO's answer past a limit: 429 ThrottleExceeded (Intuit: wait 60 seconds before retrying). */
function throttleFault(): FaultError {
  return new FaultError(
    429,
    'ThrottleExceeded',
    'message=ThrottleExceeded; errorCode=003001; statusCode=429',
    'The request limit was reached.',
    '3001',
  );
}

function now(): string {
  return new Date().toISOString();
}
