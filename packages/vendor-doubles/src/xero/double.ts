import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthGrants } from '../oauth-grants.js';
import { startVendorDoubleServer } from '../server.js';
import { classOfType, demoChart } from './demo-chart.js';
import { msDate, type XeroContract, xeroContract } from './openapi-contract.js';
import { everyGranularScope, missingScope, refusedScopes } from './scopes.js';
import { exampleTaxRates, taxTypeRefusals } from './tax-rates.js';
import { compileWhere, WhereNullFault, WhereParseError } from './where.js';

// A stateful Xero Accounting API on loopback for the adapter's tests (not shipped). It keeps organisations
// (tenants) with a chart of accounts, contacts, invoices (ACCREC and ACCPAY, AmountDue / AmountPaid / Status
// moving with payments, back to AUTHORISED when a payment is DELETED), payments, bank transactions, bank
// transfers, manual journals and credit notes; account balances from what each live document posts; the token
// endpoint with rotating refresh tokens and revocation, the consent page (granular scopes only for an app
// created on or after 2 March 2026; a PKCE challenge held to its verifier at the token endpoint) and the
// connections endpoint; each operation refused to a token without its scope (scopes.ts); Idempotency-Key
// replay for the app (the same key answers the first answer for 6 minutes); Xero's limits (5 in flight, 60 a
// minute, 1,000 or 5,000 a day per tenant by the app's tier) counted and enforced with 429 + Retry-After +
// X-Rate-Limit-Problem, plus throttling, outages and lost answers on demand; Xero-shaped
// ValidationExceptions; a `where` calling a string method on a field some record lacks answered 500
// (where.ts); overpayments refunded and their allocations removed, never deleted; the organisation's tax
// rates (GET TaxRates), a line with a TaxType it does not have refused (tax-rates.ts).
//
// Every request goes through the contract checker (xero_accounting.yaml, requests closed) and every answer
// the contract declares (200, 400) through it too, with unknown response properties rejected: a violation is
// recorded in `violations` (tests assert it empty) and a request violation is answered 400 with
// "contract violation" in the message, so it fails loudly.

type Doc = Record<string, unknown>;
type Collection =
  | 'Accounts'
  | 'Contacts'
  | 'Invoices'
  | 'Payments'
  | 'BankTransactions'
  | 'BankTransfers'
  | 'ManualJournals'
  | 'CreditNotes'
  | 'Overpayments';

/** The collections booksync books into (every document carries its marker): the order a search goes through. */
export const bookedCollections = [
  'Invoices',
  'Payments',
  'BankTransactions',
  'BankTransfers',
  'ManualJournals',
  'CreditNotes',
] as const satisfies readonly Collection[];

/** Where a document carries booksync's markers: its Reference, a journal's Narration, a bill's first line. */
export function markerTextOf(doc: Doc): string {
  const first = (doc.LineItems as { Description?: string }[] | undefined)?.[0]?.Description ?? '';
  return `${String(doc.Reference ?? '')} ${String(doc.Narration ?? '')} ${doc.Type === 'ACCPAY' ? first : ''}`;
}

const idField: Record<Collection, string> = {
  Accounts: 'AccountID',
  Contacts: 'ContactID',
  Invoices: 'InvoiceID',
  Payments: 'PaymentID',
  BankTransactions: 'BankTransactionID',
  BankTransfers: 'BankTransferID',
  ManualJournals: 'ManualJournalID',
  CreditNotes: 'CreditNoteID',
  Overpayments: 'OverpaymentID',
};

interface Tenant {
  id: string;
  name: string;
  docs: Map<Collection, Map<string, Doc>>;
  inFlight: number;
  maxInFlight: number;
  /** Start times of the requests of the last window, for the per-minute limit. */
  recent: number[];
  maxPerMinute: number;
  /** Arrival times of the requests of the day's rolling window (24 h), for the daily limit. */
  dayCalls: number[];
  calls: number;
  creates: number;
  /** Create requests that carried more than one document. */
  batches: number;
  /** Requests that arrived beyond a limit (the adapter's limiter should make this 0). */
  breaches: string[];
  /** The Organisation's lock dates (YYYY-MM-DD), Settings → Financial settings → Lock dates. */
  periodLockDate: string | null;
  endOfYearLockDate: string | null;
  /** The organisation's TaxRates (xero_accounting.yaml TaxRate), served by getTaxRates. */
  taxRates: Doc[];
  /** The notes added to a document's History & Notes, by the document's id (PUT {Endpoint}/{Guid}/History). */
  notes: Map<string, Doc[]>;
}

/** How an organisation is set up in the double. */
export interface TenantOptions {
  /** Its tax rates; xero_accounting.yaml's example ones (No GST `NONE`, 15 % GST, ...) by default. */
  taxRates?: Doc[];
  /**
   * Its chart of accounts: `demo` (default), the chart of Xero's demo company (demo-chart.ts: Xero's own codes,
   * its BANK accounts, none of booksync's accounts until `booksync targets setup xero --apply`), or the
   * accounts given, each as an Account created through PUT /Accounts, for an organisation a test wants
   * already set up.
   */
  chart?: 'demo' | readonly Doc[];
}

export class XeroValidation extends Error {
  readonly messages: string[];
  constructor(messages: string[]) {
    super(messages.join('; '));
    this.messages = messages;
  }
}

/**
 * The operations that read or change one collection plainly: a list (filtered by `where`), one document by the
 * path's last segment, an update of it, a delete (its Status set to DELETED).
 */
const listReads: Partial<Record<string, Collection>> = {
  getAccounts: 'Accounts',
  getContacts: 'Contacts',
  getPayments: 'Payments',
  getBankTransactions: 'BankTransactions',
  getManualJournals: 'ManualJournals',
  getCreditNotes: 'CreditNotes',
  getOverpayments: 'Overpayments',
};
const oneReads: Partial<Record<string, Collection>> = {
  getContact: 'Contacts',
  getContactByContactNumber: 'Contacts',
  getInvoice: 'Invoices',
  getPayment: 'Payments',
  getBankTransaction: 'BankTransactions',
  getBankTransfer: 'BankTransfers',
  getManualJournal: 'ManualJournals',
  getCreditNote: 'CreditNotes',
  getOverpayment: 'Overpayments',
};
const updates: Partial<Record<string, Collection>> = {
  updateInvoice: 'Invoices',
  updateCreditNote: 'CreditNotes',
  updateBankTransaction: 'BankTransactions',
  updateManualJournal: 'ManualJournals',
};
const deletes: Partial<Record<string, Collection>> = {
  deletePayment: 'Payments',
  deleteBankTransfer: 'BankTransfers',
};

const cents = (amount: unknown): number => Math.round(Number(amount) * 100);
const amount = (c: number): number => Number((c / 100).toFixed(2));
const live = (doc: Doc) => !['DELETED', 'VOIDED', 'DRAFT'].includes(String(doc.Status));
/** The invoice a payment pays; undefined for a refund of an overpayment. */
const paidInvoice = (payment: Doc) => (payment.Invoice as Doc | undefined)?.InvoiceID;
/** The overpayment a payment refunds; undefined for a payment of an invoice. */
const refunded = (payment: Doc) => (payment.Overpayment as Doc | undefined)?.OverpaymentID;

/**
 * Xero's business rules the double enforces, by name (the table in README.md). Each can be turned off for the
 * mutation check: `new XeroDouble({rulesOff: [...]})`, or `XERO_DOUBLE_RULES_OFF=rule,rule` for a whole run.
 */
export const xeroRules = [
  'reconciled-payment-delete',
  'paid-invoice-edit',
  'paid-invoice-void',
  'payment-over-amount-due',
  'payment-invoice-status',
  'payment-account',
  'minute-limit',
  'concurrent-limit',
  'daily-limit',
  'per-element-errors',
  'summarized-all-or-nothing',
  'unique-invoice-number',
  'unique-contact-name',
  'journal-system-account',
  'bank-transaction-bank-account',
  'bank-transfer-accounts',
  'lock-dates',
  'allocation-over-amount-due',
  'known-tax-type',
  'note-length',
  'granular-scopes',
  'operation-scope',
  'where-null-string-method',
  'idempotency-window',
  'overpayment-delete',
  'overpayment-allocation',
  'account-fields',
  'unique-account-code',
  'unique-account-name',
  'bank-account-number',
  'pkce',
] as const;
export type XeroRule = (typeof xeroRules)[number];

export interface XeroLimits {
  concurrent: number;
  perMinute: number;
  perDay: number;
  /** The minute's window (60 s; the bench and unit tests compress it). */
  windowMs: number;
  /** The day's rolling window (24 h; tests shorten it). Xero's day is not reset at UTC midnight. */
  dayWindowMs?: number;
  /** The app's minute across all organisations (10,000), reported in X-AppMinLimit-Remaining. */
  appPerMinute?: number;
}

/** Xero's app tiers since 2 March 2026 (https://developer.xero.com/faq/pricing-and-policy-updates). */
export type XeroAppTier = 'starter' | 'core' | 'plus' | 'advanced' | 'enterprise';

/** Calls a day per organisation by the app's tier: 1,000 on Starter, 5,000 on the others. */
export const dailyCallsByTier: Readonly<Record<XeroAppTier, number>> = {
  starter: 1_000,
  core: 5_000,
  plus: 5_000,
  advanced: 5_000,
  enterprise: 5_000,
};

/** How long Xero keeps an Idempotency-Key's answer for the app: 6 minutes. */
export const IDEMPOTENCY_WINDOW_MS = 6 * 60_000;

export interface XeroDoubleOptions {
  /** Rules turned off (the mutation check); also read from XERO_DOUBLE_RULES_OFF. */
  rulesOff?: XeroRule[];
  clientId?: string;
  clientSecret?: string;
  accessTokenTtlMs?: number;
  /** Simulated latency per API request, so concurrency is observable. */
  latencyMs?: number;
  /** Xero's limits; the bench compresses the minute. */
  limits?: XeroLimits;
  /** The app's tier: its daily calls per organisation (`dailyCallsByTier`), over `limits.perDay`. */
  tier?: XeroAppTier;
  /**
   * The day the app was created (YYYY-MM-DD): before 2 March 2026 it may still ask Xero's broad scopes at
   * consent; on or after, only the granular ones. Default: today (a new app).
   */
  appCreatedOn?: string;
  /** The double's clock (ms): the limits' windows and the Idempotency-Key window; tests move it, never sleep. */
  now?: () => number;
}

/** What a consent granted: the organisations chosen and the scopes asked. */
interface Grant {
  tenants: Set<string>;
  scopes: Set<string>;
}

export class XeroDouble {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly violations: string[] = [];
  /** Every API request: method, path (with query), tenant. */
  readonly requests: { method: string; url: string; tenantId: string; idempotencyKey?: string }[] = [];
  readonly limits: Required<XeroLimits>;
  private readonly rulesOff: Set<string>;
  /** Arrival times of every tenant's requests in the last minute (the app's minute). */
  private appRecent: number[] = [];
  /** Idempotency-Key -> the first answer and when it was given, for the app (every organisation). */
  private readonly replies = new Map<string, { at: number; status: number; body: unknown }>();
  private readonly appCreatedOn: string;
  private readonly now: () => number;
  private contract: XeroContract | null = null;
  private readonly tenants = new Map<string, Tenant>();
  /** Tokens and codes, each for the organisations chosen on the consent page and the scopes asked. */
  private readonly grants: OAuthGrants<Grant>;
  private readonly latencyMs: number;
  private throttled = 0;
  private lostResponses = 0;
  private outageUntil = 0;
  private readonly nextRefusals: string[][] = [];
  private app: FastifyInstance | null = null;
  url = '';

  constructor(options: XeroDoubleOptions = {}) {
    this.clientId = options.clientId ?? 'xero-client-booksync';
    this.clientSecret = options.clientSecret ?? 'xero-secret-booksync';
    this.grants = new OAuthGrants(this, options.accessTokenTtlMs ?? 1_800_000);
    this.latencyMs = options.latencyMs ?? 0;
    this.limits = {
      dayWindowMs: 86_400_000,
      appPerMinute: 10_000,
      ...(options.limits ?? { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 60_000 }),
      ...(options.tier ? { perDay: dailyCallsByTier[options.tier] } : {}),
    };
    this.now = options.now ?? Date.now;
    this.appCreatedOn = options.appCreatedOn ?? new Date().toISOString().slice(0, 10);
    this.rulesOff = new Set([
      ...(options.rulesOff ?? []),
      ...(process.env.XERO_DOUBLE_RULES_OFF ?? '').split(',').filter(Boolean),
    ]);
  }

  /** Whether a rule of xeroRules is enforced (all are, unless turned off for the mutation check). */
  enforces(rule: XeroRule): boolean {
    return !this.rulesOff.has(rule);
  }

  async start(): Promise<this> {
    this.contract = await xeroContract({ unknownResponseProperties: 'reject' });
    const { app, url } = await startVendorDoubleServer(
      (app) => {
        app.post('/connect/token', (req, reply) => this.token(req, reply));
        app.get('/connections', (req, reply) => this.connections(req, reply));
        app.all('/api.xro/2.0/*', (req, reply) => this.api(req, reply));
      },
      { bodyLimit: 16 * 1024 * 1024 },
    );
    this.url = url;
    this.app = app;
    return this;
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }

  // ---- controls ----

  /** An organisation with Xero's demo company's chart, or with the accounts given (`chart`). */
  createTenant(name = `Demo Company ${this.tenants.size + 1}`, options: TenantOptions = {}): string {
    const id = randomUUID();
    const tenant: Tenant = {
      id,
      name,
      docs: new Map(Object.keys(idField).map((c) => [c as Collection, new Map()])),
      inFlight: 0,
      maxInFlight: 0,
      recent: [],
      maxPerMinute: 0,
      dayCalls: [],
      calls: 0,
      creates: 0,
      batches: 0,
      breaches: [],
      periodLockDate: null,
      endOfYearLockDate: null,
      taxRates: structuredClone(options.taxRates ?? exampleTaxRates()),
      notes: new Map(),
    };
    this.tenants.set(id, tenant);
    const chart = options.chart ?? 'demo';
    for (const account of (chart === 'demo' ? demoChart : chart) as readonly Doc[])
      this.store(tenant, 'Accounts', {
        ...account,
        Status: 'ACTIVE',
        ...(account.Type === 'BANK' && account.BankAccountType === undefined
          ? { BankAccountType: 'BANK' }
          : {}),
        EnablePaymentsToAccount: account.EnablePaymentsToAccount ?? false,
      });
    return id;
  }

  /**
   * The authorization code Xero's consent page hands to the redirect URI, for these organisations, with every
   * granular accounting scope (what booksync asks by default, and more).
   */
  authorize(...tenantIds: string[]): string {
    return this.grants.authorize({ tenants: new Set(tenantIds), scopes: new Set(everyGranularScope) });
  }

  /** A refresh token as `booksync targets connect xero` would have stored it, every granular scope granted. */
  connect(...tenantIds: string[]): string {
    return this.connectWith(tenantIds, everyGranularScope);
  }

  /** A refresh token for these organisations with only these scopes (a consent that asked fewer). */
  connectWith(tenantIds: string[], scopes: readonly string[]): string {
    return this.grants.connect({ tenants: new Set(tenantIds), scopes: new Set(scopes) });
  }

  /**
   * Xero's consent page opened at `consentUrl` (the address `booksync targets connect xero` prints), these
   * organisations chosen and allowed: the query of the redirect, `{code, state}`, or OAuth's error
   * (RFC 6749 §4.1.2.1) with the state: `invalid_scope` when a scope is unknown, or broad and the app was created
   * on or after 2 March 2026 (`granular-scopes`); `unauthorized_client` for another client id;
   * `invalid_request` for a code_challenge whose method is not S256. A code_challenge is kept with the code,
   * whose exchange must then carry the matching code_verifier (`pkce`).
   */
  consent(consentUrl: string | URL, ...tenantIds: string[]): Record<string, string> {
    const url = new URL(consentUrl);
    const state = url.searchParams.get('state') ?? '';
    if (url.searchParams.get('client_id') !== this.clientId) return { error: 'unauthorized_client', state };
    if (url.searchParams.get('response_type') !== 'code')
      return { error: 'unsupported_response_type', state };
    const codeChallenge = url.searchParams.get('code_challenge') ?? undefined;
    if (codeChallenge !== undefined && url.searchParams.get('code_challenge_method') !== 'S256')
      return { error: 'invalid_request', error_description: 'code_challenge_method must be S256', state };
    const scopes = (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
    const refused = this.enforces('granular-scopes')
      ? refusedScopes(scopes, this.appCreatedOn)
      : scopes.filter((s) => refusedScopes([s], '2000-01-01').length > 0);
    if (refused.length > 0)
      return { error: 'invalid_scope', error_description: `Invalid scope: ${refused.join(' ')}`, state };
    const grant = { tenants: new Set(tenantIds), scopes: new Set(scopes) };
    return {
      code: this.grants.authorize(grant, this.enforces('pkce') ? codeChallenge : undefined),
      state,
    };
  }

  /** The organisation disconnected the app: its tokens stop working. */
  revoke(tenantId: string): void {
    this.grants.revoke((grant) => grant.tenants.has(tenantId));
  }

  expireAccessTokens(): void {
    this.grants.expireAccessTokens();
  }

  /** Refresh-token grants answered so far. */
  get refreshGrants(): number {
    return this.grants.refreshGrants;
  }

  /**
   * n calls of the organisation's day made elsewhere (another process of the app, e.g. `booksync targets
   * connect xero`, or a worker before a restart), `agoMs` ago: they count in the rolling day until they leave it.
   */
  spendDay(tenantId: string, n: number, agoMs = 0): void {
    const tenant = this.tenant(tenantId);
    const at = this.now() - agoMs;
    tenant.dayCalls.push(...new Array<number>(n).fill(at));
    tenant.dayCalls.sort((a, b) => a - b);
  }

  /**
   * Financial settings → Lock dates (the Organisation's PeriodLockDate and EndOfYearLockDate; the API only
   * reads them): nothing dated on or before either is created, edited, voided or deleted. The connection is
   * not an adviser's, so the period lock binds it too.
   */
  lockDates(tenantId: string, dates: { period?: string | null; endOfYear?: string | null }): void {
    const tenant = this.tenant(tenantId);
    if (dates.period !== undefined) tenant.periodLockDate = dates.period;
    if (dates.endOfYear !== undefined) tenant.endOfYearLockDate = dates.endOfYear;
  }

  /** The payment was matched to a bank statement line in Xero (bank reconciliation): IsReconciled true. */
  reconcile(tenantId: string, paymentId: string): void {
    const payment = this.tenant(tenantId).docs.get('Payments')?.get(paymentId);
    if (!payment) throw new Error(`no payment ${paymentId}`);
    payment.IsReconciled = true;
  }

  /** The next n API requests answer 429 (minute limit) with Retry-After: 1. */
  throttle(n: number): void {
    this.throttled += n;
  }

  /** The next n writes are done, then their answer is lost (a 502). */
  loseResponses(n: number): void {
    this.lostResponses += n;
  }

  /** The next create refuses its first document with these ValidationErrors (a closed period...). */
  refuseNext(...messages: string[]): void {
    this.nextRefusals.push(messages);
  }

  outage(ms: number): void {
    this.outageUntil = this.now() + ms;
  }

  calm(): void {
    this.throttled = 0;
    this.lostResponses = 0;
    this.outageUntil = 0;
    this.nextRefusals.length = 0;
  }

  stats(tenantId: string) {
    const t = this.tenant(tenantId);
    return {
      calls: t.calls,
      creates: t.creates,
      batches: t.batches,
      maxInFlight: t.maxInFlight,
      maxPerMinute: t.maxPerMinute,
      /** Requests in the day's rolling window. */
      today: this.inDay(t, this.now()),
      breaches: [...t.breaches],
    };
  }

  all(tenantId: string, collection: Collection): Doc[] {
    return [...(this.tenant(tenantId).docs.get(collection)?.values() ?? [])];
  }

  /** Every document of the collections booksync books into (`bookedCollections`). */
  booked(tenantId: string): Doc[] {
    return bookedCollections.flatMap((c) => this.all(tenantId, c));
  }

  get(tenantId: string, collection: Collection, id: string): Doc | undefined {
    return this.tenant(tenantId).docs.get(collection)?.get(id);
  }

  /** A document as if someone keyed it in Xero (an invoice to adopt, a contact to match). */
  seed(tenantId: string, collection: Collection, doc: Doc): Doc {
    const tenant = this.tenant(tenantId);
    const stored = this.store(tenant, collection, doc);
    if (collection === 'Invoices') this.settle(tenant);
    return stored;
  }

  /**
   * A bookkeeper's edit in Xero's own screens (not through booksync): `edit` changes the stored document (a
   * line's amount, a date), then Xero recomputes it as it would: line amounts, totals, an invoice's AmountDue
   * and Status from its payments.
   */
  editDocument(tenantId: string, collection: Collection, id: string, edit: (doc: Doc) => void): Doc {
    const tenant = this.tenant(tenantId);
    const doc = tenant.docs.get(collection)?.get(id);
    if (!doc) throw new Error(`no ${collection} ${id}`);
    edit(doc);
    if (Array.isArray(doc.LineItems)) {
      const lines = doc.LineItems as Doc[];
      for (const l of lines)
        l.LineAmount = amount(cents(Number(l.Quantity ?? 1) * Number(l.UnitAmount ?? 0)));
      const total = lines.reduce((sum, l) => sum + cents(l.LineAmount), 0);
      doc.SubTotal = amount(total);
      doc.Total = amount(total);
    }
    if (collection !== 'BankTransfers') doc.UpdatedDateUTC = msDate(new Date());
    this.settle(tenant);
    return doc;
  }

  /** Balance in cents (debit positive) of the account with this code, from every live document's postings. */
  balanceOf(tenantId: string, code: string): number {
    const tenant = this.tenant(tenantId);
    let sum = 0;
    for (const posting of this.postings(tenant)) if (posting.code === code) sum += posting.cents;
    return sum;
  }

  // ---- OAuth ----

  private token(req: FastifyRequest, reply: FastifyReply) {
    const answer = this.grants.exchange(
      req.headers.authorization,
      (req.body ?? {}) as Record<string, string>,
    );
    if ('error' in answer) return reply.code(400).send(answer);
    const granted = this.grants.access(`Bearer ${answer.accessToken}`)?.grant.scopes ?? new Set();
    return reply.send({
      access_token: answer.accessToken,
      expires_in: answer.expiresIn,
      token_type: 'Bearer',
      refresh_token: answer.refreshToken,
      scope: [...granted].join(' '),
    });
  }

  /** The organisations and scopes the request's access token was granted, unless it expired. */
  private grantOf(req: FastifyRequest): Grant | null {
    const issued = this.grants.access(req.headers.authorization);
    return issued && issued.expiresAt > Date.now() ? issued.grant : null;
  }

  private connections(req: FastifyRequest, reply: FastifyReply) {
    const grant = this.grantOf(req);
    if (!grant) return reply.code(401).send({ Title: 'Unauthorized', Status: 401 });
    return reply.send(
      [...grant.tenants].map((id) => ({
        id: randomUUID(),
        tenantId: id,
        tenantType: 'ORGANISATION',
        tenantName: this.tenants.get(id)?.name ?? null,
      })),
    );
  }

  // ---- the Accounting API ----

  private async api(req: FastifyRequest, reply: FastifyReply) {
    const contract = this.contract as XeroContract;
    const tenantId = String(req.headers['xero-tenant-id'] ?? '');
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({
      method: req.method,
      url: req.url,
      tenantId,
      ...(idempotencyKey ? { idempotencyKey } : {}),
    });
    const grant = this.grantOf(req);
    if (!grant) {
      return reply
        .code(401)
        .send({ Type: null, Title: 'Unauthorized', Status: 401, Detail: 'AuthenticationUnsuccessful' });
    }
    const tenant = this.tenants.get(tenantId);
    if (!tenant || !grant.tenants.has(tenantId)) {
      return reply
        .code(403)
        .send({ Type: null, Title: 'Forbidden', Status: 403, Detail: 'AuthenticationUnsuccessful' });
    }
    // A token without the operation's scope (scopes.ts): 401 AuthorizationUnsuccessful, as Xero answered
    // GET /Accounts to a token without accounting.settings (README, "Scopes").
    const operation = contract.operation(req.method, req.url)?.operationId ?? '';
    const needed = missingScope(grant.scopes, operation, req.method);
    if (needed && this.enforces('operation-scope')) {
      return reply.code(401).send({
        Type: null,
        Title: 'Unauthorized',
        Status: 401,
        Detail: 'AuthorizationUnsuccessful',
        Instance: randomUUID(),
        Extensions: {},
      });
    }
    // Xero's limits, counted at arrival per organisation: 5 in flight, 60 in a rolling minute, 5,000 in a
    // rolling 24 hours (not reset at UTC midnight), and 10,000 a minute for the app across organisations.
    // Every answer says what is left (X-DayLimit-Remaining, X-MinLimit-Remaining, X-AppMinLimit-Remaining);
    // a 429 names the limit hit in X-Rate-Limit-Problem and, for the minute and the day, when to come back
    // in Retry-After. The adapter's limiter must keep every request inside them (stats().breaches empty).
    const now = this.now();
    tenant.recent = tenant.recent.filter((t) => t > now - this.limits.windowMs);
    this.appRecent = this.appRecent.filter((t) => t > now - this.limits.windowMs);
    this.inDay(tenant, now);
    const problem =
      this.enforces('daily-limit') && tenant.dayCalls.length >= this.limits.perDay
        ? 'day'
        : this.enforces('minute-limit') && tenant.recent.length >= this.limits.perMinute
          ? 'minute'
          : this.enforces('concurrent-limit') && tenant.inFlight >= this.limits.concurrent
            ? 'concurrent'
            : null;
    // How long until the oldest request counted leaves its window (whole seconds, as Retry-After says).
    const retryAfter =
      problem === 'day'
        ? (tenant.dayCalls[0] ?? now) + this.limits.dayWindowMs - now
        : problem === 'minute'
          ? (tenant.recent[0] ?? now) + this.limits.windowMs - now
          : null;
    tenant.calls++;
    tenant.dayCalls.push(now);
    tenant.recent.push(now);
    this.appRecent.push(now);
    tenant.maxPerMinute = Math.max(tenant.maxPerMinute, tenant.recent.length);
    reply.headers(this.remaining(tenant));
    if (problem) {
      tenant.breaches.push(`${problem} limit: ${req.method} ${req.url}`);
      return this.throttleReply(
        reply,
        retryAfter === null ? null : Math.max(Math.ceil(retryAfter / 1000), 1),
        problem,
      );
    }
    tenant.inFlight++;
    tenant.maxInFlight = Math.max(tenant.maxInFlight, tenant.inFlight);
    try {
      if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
      if (this.throttled > 0) {
        this.throttled--;
        return this.throttleReply(reply, 1, 'minute');
      }
      if (this.now() < this.outageUntil) {
        return reply.code(503).type('text/html').send('<html><body>Service Unavailable</body></html>');
      }
      const violations = contract.checkRequest({
        method: req.method,
        path: req.url,
        headers: req.headers as Record<string, string>,
        body: req.body ?? undefined,
      });
      // Xero takes an Idempotency-Key on PUT, POST and PATCH (XeroAPI/Xero-OpenAPI#571); the SDK sends none
      // with a DELETE.
      const write = ['PUT', 'POST', 'PATCH'].includes(req.method);
      if (write && !idempotencyKey) violations.push(`${operation}: a write without an Idempotency-Key`);
      if (idempotencyKey && idempotencyKey.length > 128)
        violations.push(`${operation}: Idempotency-Key longer than 128 characters`);
      if (violations.length > 0) {
        this.violations.push(...violations.map((v) => `request ${req.method} ${req.url}: ${v}`));
        return this.answer(
          reply,
          operation,
          400,
          validationError([`contract violation: ${violations.join('; ')}`]),
        );
      }
      // An Idempotency-Key is the app's, whatever the organisation: its first answer, refusals included, is
      // answered again for 6 minutes (`idempotency-window`; off: for ever); after, the request is done anew.
      const replay = idempotencyKey ? this.replies.get(idempotencyKey) : undefined;
      const fresh =
        replay && (!this.enforces('idempotency-window') || this.now() - replay.at < IDEMPOTENCY_WINDOW_MS);
      if (replay && fresh) return this.answer(reply, operation, replay.status, replay.body);
      const url = new URL(req.url, 'http://xero.invalid');
      let result: { status: number; body: unknown };
      try {
        result = { status: 200, body: this.route(tenant, operation, url, req.body as Doc) };
      } catch (error) {
        if (error instanceof WhereNullFault) return reply.code(500).send(XERO_UNKNOWN_ERROR);
        if (!(error instanceof XeroValidation)) throw error;
        result = { status: 400, body: validationError(error.messages) };
      }
      if (idempotencyKey) this.replies.set(idempotencyKey, { at: this.now(), ...result });
      if (write && result.status === 200 && this.lostResponses > 0) {
        this.lostResponses--;
        return reply.code(502).type('text/html').send('<html>Bad Gateway</html>');
      }
      return this.answer(reply, operation, result.status, result.body);
    } finally {
      tenant.inFlight--;
    }
  }

  private throttleReply(reply: FastifyReply, seconds: number | null, problem: string) {
    return reply
      .code(429)
      .headers({
        ...(seconds === null ? {} : { 'retry-after': String(seconds) }),
        'x-rate-limit-problem': problem,
      })
      .send({ Title: 'Too Many Requests', Status: 429, Detail: `rate limit exceeded (${problem})` });
  }

  /** What is left of each limit after this request (Xero sends these on every answer for an organisation). */
  private remaining(tenant: Tenant): Record<string, string> {
    const left = (limit: number, used: number) => String(Math.max(limit - used, 0));
    return {
      'x-daylimit-remaining': left(this.limits.perDay, tenant.dayCalls.length),
      'x-minlimit-remaining': left(this.limits.perMinute, tenant.recent.length),
      'x-appminlimit-remaining': left(this.limits.appPerMinute, this.appRecent.length),
    };
  }

  /** Drops the requests that left the day's rolling window; returns how many are in it. */
  private inDay(tenant: Tenant, now: number): number {
    const start = now - this.limits.dayWindowMs;
    while (tenant.dayCalls.length > 0 && (tenant.dayCalls[0] ?? 0) <= start) tenant.dayCalls.shift();
    return tenant.dayCalls.length;
  }

  private answer(reply: FastifyReply, operation: string, status: number, body: unknown) {
    const problems = (this.contract as XeroContract).checkResponse(operation, status, body, {
      checkMsDates: true,
    });
    if (problems.length > 0) {
      this.violations.push(...problems.map((p) => `response: ${p}`));
      return reply
        .code(500)
        .send({ doubleError: `the double's answer breaks the contract: ${problems.join('; ')}` });
    }
    return reply.code(status).type('application/json').send(body);
  }

  /**
   * The request's `where` as a test of each record (where.ts): a string method on a field a record lacks throws
   * WhereNullFault (answered 500) unless `where-null-string-method` is off; a filter that does not parse is
   * refused as Xero refuses it.
   */
  private whereOf(url: URL): (doc: Doc) => boolean {
    const where = url.searchParams.get('where');
    if (!where) return () => true;
    try {
      return compileWhere(where, { nullFails: this.enforces('where-null-string-method') });
    } catch (error) {
      if (error instanceof WhereParseError) throw new XeroValidation([error.message]);
      throw error;
    }
  }

  private route(tenant: Tenant, operation: string, url: URL, body: Doc | undefined): unknown {
    const where = this.whereOf(url);
    const summarize = url.searchParams.get('summarizeErrors') !== 'false';
    const last = decodeURIComponent(url.pathname.split('/').at(-1) ?? '');
    // With `page`, Xero answers 100 records a page (xero_accounting.yaml, parameter page of each list).
    const page = Number(url.searchParams.get('page') ?? 0);
    const list = (collection: Collection, filter: (d: Doc) => boolean = () => true) => {
      const found = this.all(tenant.id, collection).filter((d) => where(d) && filter(d));
      const shown = page >= 1 ? found.slice((page - 1) * 100, page * 100) : found;
      return { ...envelope(), [collection]: shown.map((d) => this.view(collection, d)) };
    };
    const one = (collection: Collection) => {
      const doc = tenant.docs.get(collection)?.get(last);
      if (!doc) throw new XeroValidation([`${collection.slice(0, -1)} ${last} was not found`]);
      return { ...envelope(), [collection]: [this.view(collection, doc)] };
    };
    const creates: Partial<Record<string, [Collection, (d: Doc) => Doc]>> = {
      createContacts: ['Contacts', (d) => this.newContact(tenant, d)],
      createInvoices: ['Invoices', (d) => this.newInvoice(tenant, d)],
      createBankTransactions: ['BankTransactions', (d) => this.newBankTransaction(tenant, d)],
      createManualJournals: ['ManualJournals', (d) => this.newManualJournal(tenant, d)],
      createCreditNotes: ['CreditNotes', (d) => this.newCreditNote(tenant, d)],
    };
    const listed = listReads[operation];
    if (listed) return list(listed);
    const single = oneReads[operation];
    if (single) return one(single);
    const created = creates[operation];
    if (created) return this.createAll(tenant, created[0], body, summarize, created[1]);
    const updated = updates[operation];
    if (updated) return this.updateFirst(tenant, updated, last, body);
    const deleted = deletes[operation];
    if (deleted) return this.setStatus(tenant, deleted, last, String(body?.Status), ['DELETED']);
    switch (operation) {
      case 'getOrganisations':
        return {
          ...envelope(),
          Organisations: [
            {
              Name: tenant.name,
              BaseCurrency: 'USD',
              OrganisationID: tenant.id,
              ...(tenant.periodLockDate ? { PeriodLockDate: msDate(tenant.periodLockDate) } : {}),
              ...(tenant.endOfYearLockDate ? { EndOfYearLockDate: msDate(tenant.endOfYearLockDate) } : {}),
            },
          ],
        };
      case 'getTaxRates':
        return {
          ...envelope(),
          TaxRates: tenant.taxRates.filter((r) => where(r)).map((r) => structuredClone(r)),
        };
      case 'getInvoices':
        return list('Invoices');
      case 'getReportTrialBalance':
        return this.trialBalance(tenant, url.searchParams.get('date') ?? today());
      case 'getReportAgedReceivablesByContact':
      case 'getReportAgedPayablesByContact':
        return this.agedByContact(
          tenant,
          operation === 'getReportAgedReceivablesByContact' ? 'ACCREC' : 'ACCPAY',
          url.searchParams.get('contactId') ?? '',
          url.searchParams.get('date') ?? today(),
          url.searchParams.get('fromDate'),
        );
      case 'getBankTransfers':
        return list(
          'BankTransfers',
          (d) => url.searchParams.get('includeDeleted') === 'true' || d.Status !== 'DELETED',
        );
      case 'createPayments':
      case 'createPayment': {
        const payments = operation === 'createPayment' ? { Payments: [body] } : body;
        return this.createAll(tenant, 'Payments', payments, summarize, (d) => this.newPayment(tenant, d));
      }
      case 'createAccount':
        return { ...envelope(), Accounts: [this.view('Accounts', this.newAccount(tenant, body ?? {}))] };
      case 'createBankTransfer':
        return this.createAll(tenant, 'BankTransfers', body, true, (d) => this.newBankTransfer(tenant, d));
      case 'createCreditNoteAllocation': {
        // PUT /CreditNotes/{CreditNoteID}/Allocations: the credit note is the path's second-to-last segment.
        const creditNoteId = decodeURIComponent(url.pathname.split('/').at(-2) ?? '');
        const allocations = ((body?.Allocations as Doc[] | undefined) ?? []).map((a) =>
          this.allocate(tenant, creditNoteId, a),
        );
        return { ...envelope(), Allocations: allocations };
      }
      case 'createOverpaymentAllocations': {
        // PUT /Overpayments/{OverpaymentID}/Allocations: the overpayment is the path's second-to-last segment.
        const overpaymentId = decodeURIComponent(url.pathname.split('/').at(-2) ?? '');
        const allocations = ((body?.Allocations as Doc[] | undefined) ?? []).map((a) =>
          this.allocateCredit(tenant, overpaymentId, a),
        );
        return { ...envelope(), Allocations: allocations };
      }
      case 'deleteOverpaymentAllocations':
        return this.deleteOverpaymentAllocation(tenant, url);
      case 'getBankTransferHistory':
        return { ...envelope(), HistoryRecords: this.transferHistory(tenant, this.pathId(url)) };
      case 'createBankTransferHistoryRecord':
        return { ...envelope(), HistoryRecords: this.addNotes(tenant, this.pathId(url), body) };
      default:
        throw new XeroValidation([`the double does not serve ${operation}`]);
    }
  }

  /** A create of one or several documents: all or nothing when summarizeErrors, else each with its errors. */
  private createAll(
    tenant: Tenant,
    collection: Collection,
    body: Doc | undefined,
    summarize: boolean,
    make: (doc: Doc) => Doc,
  ) {
    const items = ((body?.[collection] as Doc[] | undefined) ?? []).map((d) => structuredClone(d));
    if (items.length > 1) tenant.batches++;
    // summarizeErrors=false: each element answered on its own (OK, or ERROR with its ValidationErrors), HTTP
    // 200, the valid ones created. Otherwise one refused element refuses the request (400, nothing created).
    const perElement = !summarize && this.enforces('per-element-errors');
    const outcomes: (Doc | XeroValidation)[] = [];
    const created: Doc[] = [];
    for (const [i, item] of items.entries()) {
      try {
        const refusal = i === 0 ? this.nextRefusals.shift() : undefined;
        if (refusal) throw new XeroValidation(refusal);
        if (collection !== 'Contacts') this.outsideLock(tenant, [String(item.Date ?? today())]);
        const doc = make(item);
        created.push(doc);
        outcomes.push(doc);
        tenant.creates++;
        // Each document of a batch sees the ones before it (a second payment the same invoice's AmountDue).
        this.settle(tenant);
      } catch (error) {
        if (!(error instanceof XeroValidation)) throw error;
        if (!perElement) {
          if (this.enforces('summarized-all-or-nothing')) {
            for (const doc of created) {
              tenant.docs.get(collection)?.delete(String(doc[idField[collection]]));
              if (doc.OverpaymentID) tenant.docs.get('Overpayments')?.delete(String(doc.OverpaymentID));
            }
            tenant.creates -= created.length;
            this.settle(tenant);
          }
          throw error;
        }
        outcomes.push(error);
      }
    }
    this.settle(tenant);
    const ok = collection === 'BankTransfers' || !perElement ? {} : { StatusAttributeString: 'OK' };
    return {
      ...envelope(),
      [collection]: outcomes.map((o, i) =>
        o instanceof XeroValidation
          ? itemWithErrors(collection, items[i] as Doc, o.messages)
          : { ...this.view(collection, o), ...ok },
      ),
    };
  }

  // ---- documents ----

  private account(tenant: Tenant, ref: unknown, what: string): Doc {
    const r = (ref ?? {}) as Doc;
    const account = this.all(tenant.id, 'Accounts').find(
      (a) =>
        (r.Code !== undefined && a.Code === r.Code) ||
        (r.AccountID !== undefined && a.AccountID === r.AccountID),
    );
    if (!account)
      throw new XeroValidation([
        `Account code '${String(r.Code ?? r.AccountID ?? '')}' is not a valid code (${what})`,
      ]);
    if (account.Status !== 'ACTIVE')
      throw new XeroValidation([`Account ${String(account.Code)} is archived`]);
    return account;
  }

  /**
   * `PUT /Accounts` (createAccount: one Account, not a list): Name and Type given, a Code of at most 10
   * characters (`account-fields`); Code and Name unique in the chart, archived accounts' included
   * (`unique-account-code`, `unique-account-name`); a BANK account with its BankAccountNumber
   * (`bank-account-number`). Class follows from Type, as Xero derives it (Class is read-only).
   */
  private newAccount(tenant: Tenant, doc: Doc): Doc {
    const code = doc.Code === undefined ? '' : String(doc.Code).trim();
    const name = String(doc.Name ?? '').trim();
    const type = String(doc.Type ?? '');
    const refused: string[] = [];
    if (this.enforces('account-fields')) {
      if (!name) refused.push('Please enter a Name.');
      if (!type) refused.push('Please select a Type.');
      if (code.length > 10) refused.push('The Code must not be longer than 10 characters.');
    }
    const chart = this.all(tenant.id, 'Accounts');
    const same = (a: unknown, b: string) =>
      String(a ?? '')
        .trim()
        .toLowerCase() === b.toLowerCase();
    if (code && this.enforces('unique-account-code') && chart.some((a) => same(a.Code, code)))
      refused.push('Please enter a unique Code.');
    if (name && this.enforces('unique-account-name') && chart.some((a) => same(a.Name, name)))
      refused.push('Please enter a unique Name.');
    if (type === 'BANK' && !doc.BankAccountNumber && this.enforces('bank-account-number'))
      refused.push('Please enter a Bank Account Number.');
    if (refused.length > 0) throw new XeroValidation(refused);
    return this.store(tenant, 'Accounts', {
      ...(code ? { Code: code } : {}),
      Name: name,
      Type: type,
      Class: classOfType[type] ?? 'ASSET',
      Status: 'ACTIVE',
      ...(type === 'BANK'
        ? { BankAccountNumber: String(doc.BankAccountNumber ?? ''), BankAccountType: 'BANK' }
        : {}),
      ...(doc.Description !== undefined ? { Description: doc.Description } : {}),
      EnablePaymentsToAccount: doc.EnablePaymentsToAccount === true,
    });
  }

  private contact(tenant: Tenant, ref: unknown): Doc {
    const id = String((ref as Doc | undefined)?.ContactID ?? '');
    const contact = tenant.docs.get('Contacts')?.get(id);
    if (!contact)
      throw new XeroValidation([id ? `Contact ${id} does not exist` : 'A Contact must be specified']);
    return contact;
  }

  private lines(tenant: Tenant, lines: unknown, needAccount: boolean): Doc[] {
    const items = (lines as Doc[] | undefined) ?? [];
    if (items.length === 0) throw new XeroValidation(['At least one line item is required']);
    return items.map((l) => {
      const lineAmount =
        l.LineAmount !== undefined
          ? cents(l.LineAmount)
          : cents(Number(l.Quantity ?? 1) * Number(l.UnitAmount ?? 0));
      let account: Doc | null = null;
      if (needAccount || l.AccountCode !== undefined) {
        account = this.account(tenant, { Code: l.AccountCode }, 'line item');
        if (account.SystemAccount || account.Type === 'BANK')
          throw new XeroValidation([
            `Account code '${String(l.AccountCode)}' is not a valid code for this document.`,
          ]);
      }
      const refused = this.enforces('known-tax-type')
        ? taxTypeRefusals(tenant.taxRates, l.TaxType, account)
        : [];
      if (refused.length > 0) throw new XeroValidation(refused);
      return {
        ...l,
        LineItemID: randomUUID(),
        Quantity: Number(l.Quantity ?? 1),
        UnitAmount: Number(l.UnitAmount ?? amount(lineAmount)),
        LineAmount: amount(lineAmount),
        TaxAmount: 0,
      };
    });
  }

  private newContact(tenant: Tenant, doc: Doc): Doc {
    const name = String(doc.Name ?? '').trim();
    if (!name) throw new XeroValidation(['The contact name must be specified']);
    if (
      this.enforces('unique-contact-name') &&
      this.all(tenant.id, 'Contacts').some((c) => c.Name === name && c.ContactStatus === 'ACTIVE')
    )
      throw new XeroValidation([
        `The contact name ${name} is already assigned to another contact. The contact name must be unique across all active contacts.`,
      ]);
    return this.store(tenant, 'Contacts', { ...doc, Name: name, ContactStatus: 'ACTIVE' });
  }

  private newInvoice(tenant: Tenant, doc: Doc): Doc {
    const type = String(doc.Type ?? '');
    if (type !== 'ACCREC' && type !== 'ACCPAY')
      throw new XeroValidation(['Invoice Type must be ACCREC or ACCPAY']);
    const contact = this.contact(tenant, doc.Contact);
    const lines = this.lines(tenant, doc.LineItems, true);
    if (type === 'ACCREC' && doc.InvoiceNumber !== undefined && this.enforces('unique-invoice-number')) {
      const taken = this.all(tenant.id, 'Invoices').some(
        (i) => i.Type === 'ACCREC' && i.InvoiceNumber === doc.InvoiceNumber && i.Status !== 'DELETED',
      );
      if (taken) throw new XeroValidation(['Invoice # must be unique.']);
    }
    const total = lines.reduce((s, l) => s + cents(l.LineAmount), 0);
    return this.store(tenant, 'Invoices', {
      ...doc,
      Contact: { ContactID: contact.ContactID, Name: contact.Name },
      Date: msDate(String(doc.Date ?? today())),
      DueDate: msDate(String(doc.DueDate ?? doc.Date ?? today())),
      Status: doc.Status ?? 'DRAFT',
      LineAmountTypes: doc.LineAmountTypes ?? 'Exclusive',
      LineItems: lines,
      InvoiceNumber:
        doc.InvoiceNumber ?? `INV-${String(this.all(tenant.id, 'Invoices').length + 1).padStart(4, '0')}`,
      SubTotal: amount(total),
      TotalTax: 0,
      Total: amount(total),
      AmountDue: amount(total),
      AmountPaid: 0,
      AmountCredited: 0,
      CurrencyCode: 'USD',
      HasErrors: false,
    });
  }

  private newPayment(tenant: Tenant, doc: Doc): Doc {
    if (refunded(doc)) return this.newRefund(tenant, doc);
    const ref = (doc.Invoice ?? {}) as Doc;
    const invoice = tenant.docs.get('Invoices')?.get(String(ref.InvoiceID ?? ''));
    if (!invoice) throw new XeroValidation(['Invoice could not be found']);
    if (invoice.Status !== 'AUTHORISED' && this.enforces('payment-invoice-status'))
      throw new XeroValidation([`Payment cannot be created as the invoice is ${String(invoice.Status)}`]);
    const account = this.account(tenant, doc.Account, 'payment account');
    if (
      account.Type !== 'BANK' &&
      account.EnablePaymentsToAccount !== true &&
      this.enforces('payment-account')
    )
      throw new XeroValidation([
        'Payments can only be made to or from a bank account or an account with payments enabled',
      ]);
    const paid = cents(doc.Amount);
    if (paid <= 0) throw new XeroValidation(['Payment amount must be greater than zero']);
    if (paid > cents(invoice.AmountDue) && this.enforces('payment-over-amount-due'))
      throw new XeroValidation(['Payment amount exceeds the amount outstanding on this document']);
    return this.store(tenant, 'Payments', {
      ...doc,
      Invoice: { InvoiceID: invoice.InvoiceID, InvoiceNumber: invoice.InvoiceNumber, Type: invoice.Type },
      Account: { AccountID: account.AccountID, Code: account.Code },
      Date: msDate(String(doc.Date ?? today())),
      Amount: amount(paid),
      Status: 'AUTHORISED',
      PaymentType: invoice.Type === 'ACCPAY' ? 'ACCPAYPAYMENT' : 'ACCRECPAYMENT',
      // A payment may be created reconciled (Payment.IsReconciled), as bank reconciliation would mark it.
      IsReconciled: doc.IsReconciled === true,
      HasAccount: true,
      HasValidationErrors: false,
    });
  }

  private newBankTransaction(tenant: Tenant, doc: Doc): Doc {
    const bank = this.account(tenant, doc.BankAccount, 'BankAccount');
    if (bank.Type !== 'BANK' && this.enforces('bank-transaction-bank-account'))
      throw new XeroValidation([`Account ${String(bank.Code)} is not a bank account`]);
    const contact = this.contact(tenant, doc.Contact);
    const type = String(doc.Type);
    if (!['RECEIVE', 'SPEND', 'RECEIVE-OVERPAYMENT', 'SPEND-OVERPAYMENT'].includes(type))
      throw new XeroValidation([`the double does not book ${type} bank transactions`]);
    const lines = this.lines(tenant, doc.LineItems, !type.endsWith('OVERPAYMENT'));
    const total = lines.reduce((s, l) => s + cents(l.LineAmount), 0);
    const overpayment = type.endsWith('OVERPAYMENT')
      ? this.newOverpayment(tenant, { ...doc, Type: type, Contact: contact, LineItems: lines, Total: total })
      : null;
    return this.store(tenant, 'BankTransactions', {
      ...doc,
      Contact: { ContactID: contact.ContactID, Name: contact.Name },
      BankAccount: { AccountID: bank.AccountID, Code: bank.Code, Name: bank.Name },
      Date: msDate(String(doc.Date ?? today())),
      LineItems: lines,
      Status: 'AUTHORISED',
      SubTotal: amount(total),
      TotalTax: 0,
      Total: amount(total),
      IsReconciled: false,
      CurrencyCode: 'USD',
      ...(overpayment ? { OverpaymentID: overpayment.OverpaymentID } : {}),
    });
  }

  /**
   * The Overpayment a RECEIVE-OVERPAYMENT (SPEND-OVERPAYMENT) bank transaction makes: the contact's credit,
   * AUTHORISED while it has RemainingCredit, PAID once refunded or allocated (settle). Its statuses are
   * AUTHORISED, PAID and VOIDED: never DELETED (xero_accounting.yaml `Overpayment.Status`; XeroAPI/Xero-Net#63).
   */
  private newOverpayment(tenant: Tenant, doc: Doc & { Contact: Doc; LineItems: Doc[]; Total: number }): Doc {
    return this.store(tenant, 'Overpayments', {
      Type: doc.Type,
      Contact: { ContactID: doc.Contact.ContactID, Name: doc.Contact.Name },
      Date: msDate(String(doc.Date ?? today())),
      Status: 'AUTHORISED',
      LineAmountTypes: doc.LineAmountTypes ?? 'NoTax',
      LineItems: doc.LineItems,
      SubTotal: amount(doc.Total),
      TotalTax: 0,
      Total: amount(doc.Total),
      RemainingCredit: amount(doc.Total),
      CurrencyCode: 'USD',
      Allocations: [],
      HasAttachments: false,
      ...(doc.Reference !== undefined ? { Reference: doc.Reference } : {}),
    });
  }

  /**
   * A bookkeeper allocating a customer's overpayment to an invoice in Xero (Xero's "Allocating overpayments"):
   * the invoice's AmountDue falls by the amount, the overpayment's RemainingCredit too. Returns the allocation.
   */
  allocateOverpayment(tenantId: string, overpaymentId: string, invoiceId: string, amountCents: number): Doc {
    const tenant = this.tenant(tenantId);
    const overpayment = tenant.docs.get('Overpayments')?.get(overpaymentId);
    const invoice = tenant.docs.get('Invoices')?.get(invoiceId);
    if (!overpayment || !invoice) throw new Error(`no overpayment ${overpaymentId} or invoice ${invoiceId}`);
    if (amountCents > cents(overpayment.RemainingCredit) || amountCents > cents(invoice.AmountDue))
      throw new Error('the allocation is more than the credit left or the invoice owes');
    const allocation: Doc = {
      AllocationID: randomUUID(),
      Invoice: { InvoiceID: invoice.InvoiceID, InvoiceNumber: invoice.InvoiceNumber },
      Amount: amount(amountCents),
      Date: overpayment.Date,
    };
    overpayment.Allocations = [...(overpayment.Allocations as Doc[]), allocation];
    this.settle(tenant);
    return structuredClone(allocation);
  }

  /**
   * `PUT /Overpayments/{id}/Allocations` (createOverpaymentAllocations): a customer's overpayment allocated to
   * an invoice of theirs (Xero's Overpayments page, "Allocating overpayments": the invoice's AmountDue falls by
   * the amount, the overpayment's RemainingCredit too), dated the allocation's Date, which no lock date may
   * hold. Refused (`overpayment-allocation`): an overpayment not AUTHORISED, an invoice not AUTHORISED, of
   * another contact or not a sales invoice, an amount not above 0, over the credit left or over the AmountDue.
   */
  private allocateCredit(tenant: Tenant, overpaymentId: string, doc: Doc): Doc {
    const overpayment = tenant.docs.get('Overpayments')?.get(overpaymentId);
    if (!overpayment) throw new XeroValidation([`Overpayment ${overpaymentId} was not found`]);
    const invoiceId = String((doc.Invoice as Doc | undefined)?.InvoiceID ?? '');
    const invoice = tenant.docs.get('Invoices')?.get(invoiceId);
    if (!invoice) throw new XeroValidation(['Invoice could not be found']);
    this.outsideLock(tenant, [String(doc.Date ?? today())]);
    const wanted = cents(doc.Amount);
    if (this.enforces('overpayment-allocation')) {
      const problems: string[] = [];
      if (overpayment.Status !== 'AUTHORISED') problems.push('Only AUTHORISED overpayments can be allocated');
      if (invoice.Status !== 'AUTHORISED' || invoice.Type !== 'ACCREC')
        problems.push('An overpayment can only be allocated to an AUTHORISED sales invoice');
      if ((invoice.Contact as Doc).ContactID !== (overpayment.Contact as Doc).ContactID)
        problems.push('The overpayment and the invoice must be for the same contact');
      if (wanted <= 0) problems.push('Allocation amount must be greater than zero');
      if (wanted > cents(overpayment.RemainingCredit))
        problems.push('The amount being allocated exceeds the remaining credit on this overpayment');
      if (wanted > cents(invoice.AmountDue))
        problems.push('The amount being allocated exceeds the amount outstanding on the invoice');
      if (problems.length > 0) throw new XeroValidation(problems);
    }
    const allocation: Doc = {
      AllocationID: randomUUID(),
      Invoice: { InvoiceID: invoice.InvoiceID, InvoiceNumber: invoice.InvoiceNumber },
      Amount: amount(wanted),
      Date: msDate(String(doc.Date ?? today())),
    };
    overpayment.Allocations = [...(overpayment.Allocations as Doc[]), allocation];
    this.settle(tenant);
    return { ...structuredClone(allocation), Overpayment: { OverpaymentID: overpayment.OverpaymentID } };
  }

  /**
   * `DELETE /Overpayments/{id}/Allocations/{AllocationID}`: the allocation removed (the invoice owed again, the
   * credit back), answered with `IsDeleted: true` (xero_accounting.yaml `deleteOverpaymentAllocations`).
   */
  private deleteOverpaymentAllocation(tenant: Tenant, url: URL): Doc {
    const segments = url.pathname.split('/').map(decodeURIComponent);
    const overpaymentId = segments.at(-3) ?? '';
    const allocationId = segments.at(-1) ?? '';
    const overpayment = tenant.docs.get('Overpayments')?.get(overpaymentId);
    if (!overpayment) throw new XeroValidation([`Overpayment ${overpaymentId} was not found`]);
    const allocations = overpayment.Allocations as Doc[];
    const allocation = allocations.find((a) => a.AllocationID === allocationId);
    if (!allocation) throw new XeroValidation([`Allocation ${allocationId} was not found`]);
    this.outsideLock(tenant, [dayOfMs(allocation.Date)]);
    overpayment.Allocations = allocations.filter((a) => a !== allocation);
    this.settle(tenant);
    return { ...structuredClone(allocation), IsDeleted: true };
  }

  /**
   * A refund of an overpayment (`Payment` with `Overpayment: {OverpaymentID}`, Xero's way to give a credit back:
   * https://developer.xero.com/documentation/api/accounting/payments): from a bank account, at most its
   * RemainingCredit, on an AUTHORISED overpayment.
   */
  private newRefund(tenant: Tenant, doc: Doc): Doc {
    const id = String(refunded(doc));
    const overpayment = tenant.docs.get('Overpayments')?.get(id);
    if (!overpayment) throw new XeroValidation(['Overpayment could not be found']);
    if (overpayment.Status !== 'AUTHORISED')
      throw new XeroValidation([
        `Payment cannot be created as the overpayment is ${String(overpayment.Status)}`,
      ]);
    const account = this.account(tenant, doc.Account, 'payment account');
    if (account.Type !== 'BANK' && this.enforces('payment-account'))
      throw new XeroValidation([
        'Payments can only be made to or from a bank account or an account with payments enabled',
      ]);
    const paid = cents(doc.Amount);
    if (paid <= 0) throw new XeroValidation(['Payment amount must be greater than zero']);
    if (paid > cents(overpayment.RemainingCredit))
      throw new XeroValidation(['Payment amount exceeds the amount outstanding on this document']);
    return this.store(tenant, 'Payments', {
      ...doc,
      Overpayment: { OverpaymentID: id },
      Account: { AccountID: account.AccountID, Code: account.Code },
      Date: msDate(String(doc.Date ?? today())),
      Amount: amount(paid),
      Status: 'AUTHORISED',
      PaymentType: overpayment.Type === 'SPEND-OVERPAYMENT' ? 'APOVERPAYMENTPAYMENT' : 'AROVERPAYMENTPAYMENT',
      IsReconciled: false,
      HasAccount: true,
      HasValidationErrors: false,
    });
  }

  /** The document id of `/{Endpoint}/{Guid}/History`: the path's second-to-last segment. */
  private pathId(url: URL): string {
    return decodeURIComponent(url.pathname.split('/').at(-2) ?? '');
  }

  /**
   * A transfer's History & Notes as Xero answers it (https://developer.xero.com/documentation/api/history-and-notes):
   * what Xero records itself (the transfer made, "System Generated", as the contract's example: "Bank
   * transfer from … to … on … for 20.00.") and then the notes added, oldest first.
   */
  private transferHistory(tenant: Tenant, id: string): Doc[] {
    const transfer = tenant.docs.get('BankTransfers')?.get(id);
    if (!transfer) throw new XeroValidation([`BankTransfer ${id} was not found`]);
    const from = (transfer.FromBankAccount as Doc).Name;
    const to = (transfer.ToBankAccount as Doc).Name;
    const created = {
      Changes: 'Created',
      DateUTC: transfer.CreatedDateUTC,
      User: 'System Generated',
      Details: `Bank transfer from ${from} to ${to} on ${longDay(dayOfMs(transfer.Date))} for ${money(cents(transfer.Amount))}.`,
    };
    return [created, ...(tenant.notes.get(id) ?? [])].map((r) => structuredClone(r));
  }

  /**
   * Notes added to a transfer: Xero keeps each as given, never edited ("It's not possible to update history
   * and notes"), and refuses a note with no Details or longer than 250 characters ("Details: The note to be
   * recorded against a single document. Max Length 250 characters"), or on a transfer it does not hold.
   * The double's wording of those refusals is its own.
   */
  private addNotes(tenant: Tenant, id: string, body: Doc | undefined): Doc[] {
    if (!tenant.docs.get('BankTransfers')?.has(id))
      throw new XeroValidation([`BankTransfer ${id} was not found`]);
    const records = (body?.HistoryRecords as Doc[] | undefined) ?? [];
    const problems = records.flatMap((r) => {
      const details = typeof r.Details === 'string' ? r.Details : '';
      if (details.trim() === '') return ['A note must have Details'];
      return details.length > 250 && this.enforces('note-length')
        ? [`A note cannot exceed 250 characters (${details.length} given)`]
        : [];
    });
    if (records.length === 0) problems.push('No history records were given');
    if (problems.length > 0) throw new XeroValidation(problems);
    const added = records.map((r) => ({
      Changes: 'Note',
      DateUTC: msDate(new Date()),
      User: 'System Generated',
      Details: String(r.Details),
    }));
    tenant.notes.set(id, [...(tenant.notes.get(id) ?? []), ...added]);
    return added.map((r) => structuredClone(r));
  }

  /** The notes of a document's History & Notes (what a Xero user reads on the document), oldest first. */
  notesOf(tenantId: string, id: string): string[] {
    return (this.tenant(tenantId).notes.get(id) ?? []).map((r) => String(r.Details));
  }

  private newBankTransfer(tenant: Tenant, doc: Doc): Doc {
    const from = this.account(tenant, doc.FromBankAccount, 'FromBankAccount');
    const to = this.account(tenant, doc.ToBankAccount, 'ToBankAccount');
    if ((from.Type !== 'BANK' || to.Type !== 'BANK') && this.enforces('bank-transfer-accounts'))
      throw new XeroValidation(['Bank transfers can only be made between bank accounts']);
    if (from.AccountID === to.AccountID)
      throw new XeroValidation(['The from and to bank accounts must differ']);
    if (cents(doc.Amount) <= 0) throw new XeroValidation(['The amount must be greater than zero']);
    return this.store(tenant, 'BankTransfers', {
      ...doc,
      FromBankAccount: { AccountID: from.AccountID, Code: from.Code, Name: from.Name },
      ToBankAccount: { AccountID: to.AccountID, Code: to.Code, Name: to.Name },
      Date: msDate(String(doc.Date ?? today())),
      Amount: amount(cents(doc.Amount)),
      FromBankTransactionID: randomUUID(),
      ToBankTransactionID: randomUUID(),
      CreatedDateUTC: msDate(new Date()),
      Status: 'AUTHORISED',
      HasAttachments: false,
    });
  }

  private newManualJournal(tenant: Tenant, doc: Doc): Doc {
    const lines = (doc.JournalLines as Doc[] | undefined) ?? [];
    if (lines.length < 2) throw new XeroValidation(['A manual journal needs at least two lines']);
    for (const line of lines) {
      const account = this.account(tenant, { Code: line.AccountCode }, 'journal line');
      if (account.SystemAccount && this.enforces('journal-system-account'))
        throw new XeroValidation([
          `Account code '${String(line.AccountCode)}' is a system account and cannot be used in a manual journal`,
        ]);
    }
    const sum = lines.reduce((s, l) => s + cents(l.LineAmount), 0);
    if (sum !== 0) throw new XeroValidation(['The total debits must equal the total credits']);
    return this.store(tenant, 'ManualJournals', {
      ...doc,
      Date: msDate(String(doc.Date ?? today())),
      Status: doc.Status ?? 'DRAFT',
      JournalLines: lines.map((l) => ({ ...l, LineAmount: amount(cents(l.LineAmount)), TaxAmount: 0 })),
      HasAttachments: false,
    });
  }

  private newCreditNote(tenant: Tenant, doc: Doc): Doc {
    const contact = this.contact(tenant, doc.Contact);
    const lines = this.lines(tenant, doc.LineItems, true);
    const total = lines.reduce((s, l) => s + cents(l.LineAmount), 0);
    return this.store(tenant, 'CreditNotes', {
      ...doc,
      Contact: { ContactID: contact.ContactID, Name: contact.Name },
      Date: msDate(String(doc.Date ?? today())),
      Status: doc.Status ?? 'DRAFT',
      LineItems: lines,
      CreditNoteNumber: `CN-${String(this.all(tenant.id, 'CreditNotes').length + 1).padStart(4, '0')}`,
      SubTotal: amount(total),
      TotalTax: 0,
      Total: amount(total),
      RemainingCredit: amount(total),
      CurrencyCode: 'USD',
    });
  }

  /**
   * A credit note allocated to an invoice (Xero's "Allocating credit notes": the invoice's AmountDue falls by
   * the amount, the credit note's RemainingCredit too). Refused: a credit note or invoice not AUTHORISED, of
   * another contact or type, an amount over what the credit has left or over the invoice's AmountDue.
   */
  private allocate(tenant: Tenant, creditNoteId: string, doc: Doc): Doc {
    const note = tenant.docs.get('CreditNotes')?.get(creditNoteId);
    if (!note) throw new XeroValidation([`CreditNote ${creditNoteId} was not found`]);
    const invoiceId = String((doc.Invoice as Doc | undefined)?.InvoiceID ?? '');
    const invoice = tenant.docs.get('Invoices')?.get(invoiceId);
    if (!invoice) throw new XeroValidation(['Invoice could not be found']);
    this.outsideLock(tenant, [String(doc.Date ?? today())]);
    if (note.Status !== 'AUTHORISED')
      throw new XeroValidation(['Only AUTHORISED credit notes can be allocated']);
    if (invoice.Status !== 'AUTHORISED') {
      throw new XeroValidation([
        `A credit note cannot be allocated to an invoice that is ${String(invoice.Status)}`,
      ]);
    }
    if ((invoice.Contact as Doc).ContactID !== (note.Contact as Doc).ContactID) {
      throw new XeroValidation(['The credit note and the invoice must be for the same contact']);
    }
    if ((note.Type === 'ACCRECCREDIT') !== (invoice.Type === 'ACCREC')) {
      throw new XeroValidation(['A credit note can only be allocated to an invoice of its own kind']);
    }
    const wanted = cents(doc.Amount);
    if (wanted <= 0) throw new XeroValidation(['Allocation amount must be greater than zero']);
    if (wanted > cents(note.RemainingCredit) && this.enforces('allocation-over-amount-due')) {
      throw new XeroValidation([
        'The amount being allocated exceeds the remaining credit on this credit note',
      ]);
    }
    if (wanted > cents(invoice.AmountDue) && this.enforces('allocation-over-amount-due')) {
      throw new XeroValidation(['The amount being allocated exceeds the amount outstanding on the invoice']);
    }
    const allocation: Doc = {
      AllocationID: randomUUID(),
      Invoice: { InvoiceID: invoice.InvoiceID, InvoiceNumber: invoice.InvoiceNumber },
      Amount: amount(wanted),
      Date: msDate(String(doc.Date ?? today())),
    };
    note.Allocations = [...((note.Allocations as Doc[] | undefined) ?? []), allocation];
    note.RemainingCredit = amount(cents(note.RemainingCredit) - wanted);
    if (cents(note.RemainingCredit) === 0) note.Status = 'PAID';
    this.settle(tenant);
    return { ...allocation, CreditNote: { CreditNoteID: note.CreditNoteID } };
  }

  /** What live credit notes and overpayments allocated to an invoice, on or before `day` when given. */
  private credited(tenant: Tenant, invoiceId: string, day?: string): number {
    let sum = 0;
    const credits = [...this.all(tenant.id, 'CreditNotes'), ...this.all(tenant.id, 'Overpayments')];
    for (const note of credits) {
      if (!['AUTHORISED', 'PAID'].includes(String(note.Status))) continue;
      for (const a of (note.Allocations as Doc[] | undefined) ?? []) {
        if ((a.Invoice as Doc).InvoiceID !== invoiceId) continue;
        if (day !== undefined && dayOfMs(a.Date) > day) continue;
        sum += cents(a.Amount);
      }
    }
    return sum;
  }

  private setStatus(tenant: Tenant, collection: Collection, id: string, status: string, allowed: string[]) {
    const doc = tenant.docs.get(collection)?.get(id);
    if (!doc) throw new XeroValidation([`${collection.slice(0, -1)} ${id} was not found`]);
    if (!allowed.includes(status)) throw new XeroValidation([`Status ${status} is not allowed here`]);
    if (doc.Status === status) throw new XeroValidation([`This document is already ${status}`]);
    this.outsideLock(tenant, [dayOfMs(doc.Date)]);
    if (collection === 'Payments' && doc.IsReconciled === true && this.enforces('reconciled-payment-delete'))
      throw new XeroValidation([RECONCILED_PAYMENT]);
    doc.Status = status;
    if (collection !== 'BankTransfers') doc.UpdatedDateUTC = msDate(new Date());
    this.settle(tenant);
    return { ...envelope(), [collection]: [this.view(collection, doc)] };
  }

  /** `POST /<Collection>/{id}`: a status change (VOIDED, DELETED) or a field update (an adopted Reference). */
  private updateFirst(tenant: Tenant, collection: Collection, id: string, body: Doc | undefined) {
    const doc = tenant.docs.get(collection)?.get(id);
    if (!doc) throw new XeroValidation([`${collection.slice(0, -1)} ${id} was not found`]);
    const change = ((body?.[collection] as Doc[] | undefined) ?? [])[0] ?? {};
    const statusChange = change.Status !== undefined && change.Status !== doc.Status;
    this.outsideLock(tenant, [
      dayOfMs(doc.Date),
      ...(change.Date !== undefined ? [String(change.Date)] : []),
    ]);
    if (collection === 'Invoices' && this.applied(tenant, id)) {
      // Xero refuses any edit of an invoice with a payment (or credit note) applied, its Reference included,
      // and voiding it: the payments must be removed first.
      const rule = statusChange ? 'paid-invoice-void' : 'paid-invoice-edit';
      if (this.enforces(rule)) throw new XeroValidation([PAYMENT_APPLIED]);
    }
    if (statusChange) {
      const status = String(change.Status);
      if (!['VOIDED', 'DELETED'].includes(status))
        throw new XeroValidation([`Status ${status} is not allowed here`]);
      // An overpayment has no DELETED status (XeroAPI/Xero-Net#63): it is refunded, or its allocations
      // removed (README, `overpayment-delete`).
      if (doc.OverpaymentID !== undefined && this.enforces('overpayment-delete'))
        throw new XeroValidation([OVERPAYMENT_DELETE]);
      const overpayment = tenant.docs.get('Overpayments')?.get(String(doc.OverpaymentID));
      if (overpayment) overpayment.Status = 'VOIDED';
      doc.Status = status;
    }
    if (change.Reference !== undefined) doc.Reference = change.Reference;
    doc.UpdatedDateUTC = msDate(new Date());
    this.settle(tenant);
    return { ...envelope(), [collection]: [this.view(collection, doc)] };
  }

  /**
   * Xero refuses a document dated on or before a lock date, with its messages: "The document date cannot be
   * before the period lock date, currently set at 30-Nov-2018" / "… the end of year lock date, currently set
   * at 31-Jul-2013" (README: the sources).
   */
  private outsideLock(tenant: Tenant, dates: string[]) {
    if (!this.enforces('lock-dates')) return;
    const messages: string[] = [];
    const on = (lock: string | null) =>
      lock !== null && dates.some((d) => d !== '' && d.slice(0, 10) <= lock);
    if (on(tenant.periodLockDate))
      messages.push(
        `The document date cannot be before the period lock date, currently set at ${xeroDay(tenant.periodLockDate)}`,
      );
    if (on(tenant.endOfYearLockDate))
      messages.push(
        `The document date cannot be before the end of year lock date, currently set at ${xeroDay(tenant.endOfYearLockDate)}`,
      );
    if (messages.length > 0) throw new XeroValidation(messages);
  }

  /** An invoice with a live payment applied. */
  private applied(tenant: Tenant, invoiceId: string): boolean {
    return this.all(tenant.id, 'Payments').some((p) => live(p) && paidInvoice(p) === invoiceId);
  }

  /** Invoices' AmountDue / AmountPaid / Status from their live payments. */
  private settle(tenant: Tenant) {
    const payments = this.all(tenant.id, 'Payments').filter(live);
    for (const invoice of tenant.docs.get('Invoices')?.values() ?? []) {
      if (!['AUTHORISED', 'PAID'].includes(String(invoice.Status))) continue;
      const paid = payments
        .filter((p) => paidInvoice(p) === invoice.InvoiceID)
        .reduce((s, p) => s + cents(p.Amount), 0);
      const credited = this.credited(tenant, String(invoice.InvoiceID));
      const due = cents(invoice.Total) - paid - credited;
      invoice.AmountPaid = amount(paid);
      invoice.AmountCredited = amount(credited);
      invoice.AmountDue = amount(due);
      invoice.Status = due === 0 && paid + credited > 0 ? 'PAID' : 'AUTHORISED';
    }
    // An overpayment's credit: its Total less what was allocated and refunded; PAID when none is left.
    for (const overpayment of tenant.docs.get('Overpayments')?.values() ?? []) {
      if (overpayment.Status === 'VOIDED') continue;
      const allocated = (overpayment.Allocations as Doc[]).reduce((s, a) => s + cents(a.Amount), 0);
      const refunds = payments
        .filter((p) => refunded(p) === overpayment.OverpaymentID)
        .reduce((s, p) => s + cents(p.Amount), 0);
      const left = cents(overpayment.Total) - allocated - refunds;
      overpayment.RemainingCredit = amount(left);
      overpayment.Status = left === 0 ? 'PAID' : 'AUTHORISED';
    }
  }

  /** What each live document posts (debit positive), by account code, on the document's (payment's) day. */
  private postings(tenant: Tenant): { code: string; cents: number; date: string }[] {
    const accounts = this.all(tenant.id, 'Accounts');
    const system = (kind: string) => String(accounts.find((a) => a.SystemAccount === kind)?.Code);
    const debtors = system('DEBTORS');
    const creditors = system('CREDITORS');
    const out: { code: string; cents: number; date: string }[] = [];
    let date = '';
    const push = (...postings: { code: string; cents: number }[]) => {
      for (const p of postings) out.push({ ...p, date });
    };
    const lineCode = (l: Doc) => String(l.AccountCode);
    for (const inv of this.all(tenant.id, 'Invoices')) {
      date = dayOfMs(inv.Date);
      if (!['AUTHORISED', 'PAID'].includes(String(inv.Status))) continue;
      const sign = inv.Type === 'ACCREC' ? 1 : -1;
      push({ code: inv.Type === 'ACCREC' ? debtors : creditors, cents: sign * cents(inv.Total) });
      for (const l of inv.LineItems as Doc[]) push({ code: lineCode(l), cents: -sign * cents(l.LineAmount) });
    }
    for (const cn of this.all(tenant.id, 'CreditNotes')) {
      date = dayOfMs(cn.Date);
      if (!['AUTHORISED', 'PAID'].includes(String(cn.Status))) continue;
      push({ code: debtors, cents: -cents(cn.Total) });
      for (const l of cn.LineItems as Doc[]) push({ code: lineCode(l), cents: cents(l.LineAmount) });
    }
    for (const p of this.all(tenant.id, 'Payments').filter(live)) {
      date = dayOfMs(p.Date);
      const bank = String((p.Account as Doc).Code);
      if (refunded(p)) {
        // A customer's overpayment refunded: the money out of the bank, the receivable back (a supplier's: in).
        const customer = p.PaymentType === 'AROVERPAYMENTPAYMENT';
        const sign = customer ? 1 : -1;
        push(
          { code: bank, cents: -sign * cents(p.Amount) },
          { code: customer ? debtors : creditors, cents: sign * cents(p.Amount) },
        );
        continue;
      }
      const sales = (p.Invoice as Doc).Type === 'ACCREC';
      push(
        { code: bank, cents: sales ? cents(p.Amount) : -cents(p.Amount) },
        { code: sales ? debtors : creditors, cents: sales ? -cents(p.Amount) : cents(p.Amount) },
      );
    }
    for (const bt of this.all(tenant.id, 'BankTransactions').filter(live)) {
      date = dayOfMs(bt.Date);
      const receive = String(bt.Type).startsWith('RECEIVE');
      const sign = receive ? 1 : -1;
      push({ code: String((bt.BankAccount as Doc).Code), cents: sign * cents(bt.Total) });
      if (String(bt.Type).endsWith('OVERPAYMENT'))
        push({ code: receive ? debtors : creditors, cents: -sign * cents(bt.Total) });
      else
        for (const l of bt.LineItems as Doc[])
          push({ code: lineCode(l), cents: -sign * cents(l.LineAmount) });
    }
    for (const t of this.all(tenant.id, 'BankTransfers').filter(live)) {
      date = dayOfMs(t.Date);
      push(
        { code: String((t.ToBankAccount as Doc).Code), cents: cents(t.Amount) },
        { code: String((t.FromBankAccount as Doc).Code), cents: -cents(t.Amount) },
      );
    }
    for (const mj of this.all(tenant.id, 'ManualJournals')) {
      date = dayOfMs(mj.Date);
      if (mj.Status !== 'POSTED') continue;
      for (const l of mj.JournalLines as Doc[])
        push({ code: String(l.AccountCode), cents: cents(l.LineAmount) });
    }
    return out;
  }

  // ---- reports (README "The reports") ----

  /**
   * `GET /Reports/TrialBalance?date=`: a Section per account class and a Row per account with a balance, its
   * five cells (Account, Debit, Credit, YTD Debit, YTD Credit) each carrying the AccountID (attribute
   * `account`), as Xero's example shows; Debit / Credit are the movement of the date's month, YTD Debit / YTD
   * Credit the balance at the date: cumulative for assets, liabilities and equity, since the financial year's
   * start (1 January: the double's organisations end their year in December) for revenue and expenses, earlier
   * years' net in a Retained Earnings row. A last Section holds the Total SummaryRow.
   */
  private trialBalance(tenant: Tenant, date: string) {
    const day = date.slice(0, 10);
    const yearStart = `${day.slice(0, 4)}-01-01`;
    const monthStart = `${day.slice(0, 7)}-01`;
    const accounts = this.all(tenant.id, 'Accounts');
    const byCode = new Map(accounts.map((a) => [String(a.Code), a]));
    const profitAndLoss = (a: Doc | undefined) => a?.Class === 'REVENUE' || a?.Class === 'EXPENSE';
    const ytd = new Map<string, number>();
    const month = new Map<string, number>();
    let retained = 0;
    for (const p of this.postings(tenant)) {
      if (p.date === '' || p.date > day) continue;
      const account = byCode.get(p.code);
      if (profitAndLoss(account) && p.date < yearStart) {
        retained += p.cents;
        continue;
      }
      ytd.set(p.code, (ytd.get(p.code) ?? 0) + p.cents);
      if (p.date >= monthStart) month.set(p.code, (month.get(p.code) ?? 0) + p.cents);
    }
    const sides = (c: number) => [c > 0 ? money(c) : '', c < 0 ? money(-c) : ''];
    const totals = [0, 0, 0, 0];
    const row = (name: string, accountId: string | null, movement: number, balance: number) => {
      const values = [name, ...sides(movement), ...sides(balance)];
      for (const [i, c] of [movement, -movement, balance, -balance].entries())
        totals[i] = (totals[i] ?? 0) + Math.max(c, 0);
      const attributes = accountId ? { Attributes: [{ Value: accountId, Id: 'account' }] } : {};
      return { RowType: 'Row', Cells: values.map((Value) => ({ Value, ...attributes })) };
    };
    const classes = [
      ['REVENUE', 'Revenue'],
      ['EXPENSE', 'Expenses'],
      ['ASSET', 'Assets'],
      ['LIABILITY', 'Liabilities'],
      ['EQUITY', 'Equity'],
    ] as const;
    const sections: Doc[] = [];
    for (const [accountClass, title] of classes) {
      const rows = accounts
        .filter((a) => a.Class === accountClass && (ytd.get(String(a.Code)) ?? 0) !== 0)
        .map((a) =>
          row(
            `${String(a.Name)} (${String(a.Code)})`,
            String(a.AccountID),
            month.get(String(a.Code)) ?? 0,
            ytd.get(String(a.Code)) ?? 0,
          ),
        );
      if (accountClass === 'EQUITY' && retained !== 0) rows.push(row('Retained Earnings', null, 0, retained));
      if (rows.length > 0) sections.push({ RowType: 'Section', Title: title, Rows: rows });
    }
    return this.reportAnswer({
      ReportName: 'Trial Balance',
      ReportType: 'TrialBalance',
      ReportTitles: ['Trial Balance', tenant.name, `As at ${longDay(day)}`],
      ReportDate: longDay(day),
      Rows: [
        {
          RowType: 'Header',
          Cells: ['Account', 'Debit', 'Credit', 'YTD Debit', 'YTD Credit'].map((Value) => ({ Value })),
        },
        ...sections,
        {
          RowType: 'Section',
          Title: '',
          Rows: [
            { RowType: 'SummaryRow', Cells: ['Total', ...totals.map(money)].map((Value) => ({ Value })) },
          ],
        },
      ],
    });
  }

  /**
   * `GET /Reports/AgedReceivablesByContact` (`AgedPayablesByContact`) `?contactId=&date=&fromDate=`: the
   * contact's invoices (bills) dated on or before the date, with what was paid by payments dated on or before
   * it ("Showing payments to <date>"), as Xero's examples show: a Header row (Date, Number / Reference, Due
   * Date, overdue, Total, Paid, Credited, Due), a Section with the Opening Balance, a Section with a Row per
   * invoice still due at the date (each cell carrying its InvoiceID, attribute `invoiceID`) and its Total
   * SummaryRow, and a Section with the Closing Balance. contactId is required (the contract refuses its absence).
   */
  private agedByContact(
    tenant: Tenant,
    type: 'ACCREC' | 'ACCPAY',
    contactId: string,
    date: string,
    fromDate: string | null,
  ) {
    const day = date.slice(0, 10);
    const contact = this.contact(tenant, { ContactID: contactId });
    const payments = this.all(tenant.id, 'Payments').filter((p) => live(p) && dayOfMs(p.Date) <= day);
    const rows: Doc[] = [];
    const sum = { total: 0, paid: 0, due: 0 };
    const invoices = this.all(tenant.id, 'Invoices')
      .filter(
        (i) =>
          i.Type === type &&
          (i.Contact as Doc).ContactID === contactId &&
          ['AUTHORISED', 'PAID'].includes(String(i.Status)) &&
          dayOfMs(i.Date) <= day,
      )
      .sort((a, b) => (dayOfMs(a.Date) < dayOfMs(b.Date) ? -1 : 1));
    for (const invoice of invoices) {
      const total = cents(invoice.Total);
      const paid = payments
        .filter((p) => paidInvoice(p) === invoice.InvoiceID)
        .reduce((s, p) => s + cents(p.Amount), 0);
      const credited = this.credited(tenant, String(invoice.InvoiceID), day);
      const due = total - paid - credited;
      if (due === 0) continue;
      sum.total += total;
      sum.paid += paid;
      sum.due += due;
      const overdue = Math.round(
        (Date.parse(`${day}T00:00:00Z`) - Date.parse(`${dayOfMs(invoice.DueDate)}T00:00:00Z`)) / 86_400_000,
      );
      const attributes = [{ Value: String(invoice.InvoiceID), Id: 'invoiceID' }];
      rows.push({
        RowType: 'Row',
        Cells: [
          `${dayOfMs(invoice.Date)}T00:00:00`,
          type === 'ACCREC' ? String(invoice.InvoiceNumber ?? '') : String(invoice.Reference ?? ''),
          `${dayOfMs(invoice.DueDate)}T00:00:00`,
          overdue > 0 ? `${overdue} days overdue` : '',
          money(total),
          money(paid),
          money(credited),
          money(due),
        ].map((Value) => ({ Value, Attributes: attributes })),
      });
    }
    const from = fromDate ?? (invoices[0] ? dayOfMs(invoices[0].Date) : day);
    const summary = (label: string) => ({
      RowType: 'SummaryRow',
      Cells: [label, '', '', '', money(sum.total), money(sum.paid), money(0), money(sum.due)].map(
        (Value) => ({
          Value,
        }),
      ),
    });
    const name = type === 'ACCREC' ? 'Aged Receivables By Contact' : 'Aged Payables By Contact';
    return this.reportAnswer({
      ReportName: name,
      ReportType: name.replace(/ /g, ''),
      ReportTitles: [
        'Invoices',
        String(contact.Name),
        `From ${longDay(from)} to ${longDay(day)}`,
        `Showing payments to ${longDay(day)}`,
      ],
      ReportDate: longDay(day),
      Rows: [
        {
          RowType: 'Header',
          Cells: [
            'Date',
            type === 'ACCREC' ? 'Number' : 'Reference',
            'Due Date',
            '',
            'Total',
            'Paid',
            'Credited',
            'Due',
          ].map((Value) => ({ Value })),
        },
        {
          RowType: 'Section',
          Title: '',
          Rows: [
            {
              RowType: 'Row',
              Cells: [`${from}T00:00:00`, 'Opening Balance', '', '', '', '', '', money(0)].map((Value) => ({
                Value,
              })),
            },
          ],
        },
        { RowType: 'Section', Title: '', Rows: [...rows, summary('Total')] },
        { RowType: 'Section', Title: '', Rows: [summary('Closing Balance')] },
      ],
    });
  }

  /**
   * A report as Xero answers it: ReportWithRows, one report, Fields empty (Xero's examples add the envelope's
   * Id, Status, ProviderName, DateTimeUTC, which ReportWithRows does not declare: left out, the double writes
   * only what the contract declares).
   */
  private reportAnswer(report: Doc) {
    return {
      Reports: [{ ...report, UpdatedDateUTC: msDate(new Date()), Fields: [] }],
    };
  }

  private store(tenant: Tenant, collection: Collection, doc: Doc): Doc {
    const id = randomUUID();
    // BankTransfers carry CreatedDateUTC instead (the contract has no UpdatedDateUTC on them).
    const stamp = collection === 'BankTransfers' ? {} : { UpdatedDateUTC: msDate(new Date()) };
    const stored = { ...doc, [idField[collection]]: id, ...stamp };
    tenant.docs.get(collection)?.set(id, stored);
    return stored;
  }

  /** A document as Xero answers it: what it stores, with a payment's invoice and an invoice's payments. */
  private view(collection: Collection, doc: Doc): Doc {
    const copy = structuredClone(doc);
    if (collection === 'Invoices') {
      const tenant = [...this.tenants.values()].find((t) =>
        t.docs.get('Invoices')?.get(String(doc.InvoiceID)),
      );
      const payments = tenant
        ? this.all(tenant.id, 'Payments').filter((p) => paidInvoice(p) === doc.InvoiceID && live(p))
        : [];
      copy.Payments = payments.map((p) => ({
        PaymentID: p.PaymentID,
        Date: p.Date,
        Amount: p.Amount,
        Reference: p.Reference,
      }));
    }
    if (collection === 'Overpayments') {
      // Its refunds, as Xero lists an overpayment's Payments.
      const tenant = [...this.tenants.values()].find((t) =>
        t.docs.get('Overpayments')?.get(String(doc.OverpaymentID)),
      );
      copy.Payments = (tenant ? this.all(tenant.id, 'Payments') : [])
        .filter((p) => refunded(p) === doc.OverpaymentID && live(p))
        .map((p) => ({ PaymentID: p.PaymentID, Date: p.Date, Amount: p.Amount, Reference: p.Reference }));
    }
    return copy;
  }

  private tenant(id: string): Tenant {
    const tenant = this.tenants.get(id);
    if (!tenant) throw new Error(`no tenant ${id}`);
    return tenant;
  }
}

function envelope() {
  return {
    Id: randomUUID(),
    Status: 'OK',
    ProviderName: 'booksync xero double',
    DateTimeUTC: msDate(new Date()),
  };
}

/** Cents as Xero's reports write an amount: "1234.50" (through the digits, no float). */
function money(c: number): string {
  return `${c < 0 ? '-' : ''}${Math.trunc(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;
}

/** A day as Xero's report titles write it: 31 January 2026. */
function longDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return `${d.getUTCDate()} ${d.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' })} ${d.getUTCFullYear()}`;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** A stored `/Date(ms+0000)/` (or YYYY-MM-DD) as YYYY-MM-DD; '' when none. */
function dayOfMs(value: unknown): string {
  const ms = /^\/Date\((-?\d+)/.exec(String(value ?? ''))?.[1];
  if (ms) return new Date(Number(ms)).toISOString().slice(0, 10);
  return typeof value === 'string' ? value.slice(0, 10) : '';
}

/** A day as Xero writes it in its lock-date messages: 31-Jan-2026. */
function xeroDay(day: string | null): string {
  const d = new Date(`${day}T00:00:00Z`);
  const month = d.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' });
  return `${String(d.getUTCDate()).padStart(2, '0')}-${month}-${d.getUTCFullYear()}`;
}

/**
 * Xero's answer to a request it failed on, a string method on a null field among them (HTTP 500, as
 * freakboy3742/pyxero#181 quotes it). The contract declares no 500: sent as it is, not checked.
 */
export const XERO_UNKNOWN_ERROR = {
  ErrorNumber: 500,
  Type: 'UnknownErrorException',
  Message:
    'An error occurred in Xero. Check the API Status page http://status.developer.xero.com for current service status. Contact the API support team at api@xero.com for more assistance.',
};

/** Xero's refusal of an edit (Reference included) or a void of an invoice with a payment applied. */
export const PAYMENT_APPLIED =
  'This document cannot be edited as it has a payment or credit note allocated to it.';
/** The refusal of an overpayment's bank transaction set DELETED (Xero documents the statuses, not this wording). */
export const OVERPAYMENT_DELETE =
  'An overpayment cannot be deleted: refund it, or remove its allocations (its status is AUTHORISED, PAID or VOIDED).';
/** The refusal of a reconciled payment's deletion (Xero documents the rule, not the wording: ours). */
export const RECONCILED_PAYMENT =
  'Payment cannot be deleted as it has been reconciled. Unreconcile it first.';

export function validationError(messages: string[]) {
  return {
    ErrorNumber: 10,
    Type: 'ValidationException',
    Message: 'A validation exception occurred',
    Elements: [{ ValidationErrors: messages.map((Message) => ({ Message })) }],
  };
}

/** A document of a batch refused with summarizeErrors=false: what was sent, its errors beside it. */
function itemWithErrors(collection: Collection, sent: Doc, messages: string[]): Doc {
  const errors = messages.map((Message) => ({ Message }));
  const flag: Record<Collection, Doc> = {
    Accounts: {},
    Contacts: { HasValidationErrors: true },
    Invoices: { HasErrors: true },
    Payments: { HasValidationErrors: true },
    BankTransactions: {},
    BankTransfers: {},
    ManualJournals: {},
    CreditNotes: { HasErrors: true },
    Overpayments: {},
  };
  const copy = structuredClone(sent);
  // Dates as Xero answers them.
  for (const field of ['Date', 'DueDate'])
    if (typeof copy[field] === 'string' && !String(copy[field]).startsWith('/Date('))
      copy[field] = msDate(String(copy[field]));
  return { ...copy, ...flag[collection], StatusAttributeString: 'ERROR', ValidationErrors: errors };
}
