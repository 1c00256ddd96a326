import {
  DebitMemoResult,
  Disbursement,
  ExternalPaymentResult,
  Payment,
  PaymentLink,
} from '@booksync/service-contract/schemas/index';
import type { Info } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { ActivityDependencies } from '../../src/flows/in-activity/context.js';
import type { AccountName } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { ServiceClient } from '../../src/service/client.js';

// Activity unit tests: the real activity factories over a real embedded ledger in memory and a fake service
// holding records in maps. The fake answers only the ServiceClient methods the payment, disbursement and
// payment-link activities call; each answer goes through the service schema, as the real client's does, so
// a fixture that breaks the contract fails its test instead of testing a shape the service never sends.

/** The ServiceClient methods these activities call. */
export type FakeServiceMethods = Pick<
  ServiceClient,
  | 'getPayment'
  | 'getPaymentLink'
  | 'getDisbursement'
  | 'recordExternalPayment'
  | 'recordDebitMemo'
  | 'voidExternalPayment'
  | 'voidDebitMemo'
>;
type MethodName = keyof FakeServiceMethods;

export interface FakeService {
  payments: Map<string, Payment>;
  links: Map<string, PaymentLink>;
  disbursements: Map<string, Disbursement>;
  /** What the write methods answer next, by method. */
  writeAnswers: Partial<Record<'recordExternalPayment' | 'recordDebitMemo', unknown>>;
  /** Every call, as [method, ...arguments], in order. */
  calls: [MethodName, ...unknown[]][];
  /** Makes every later call of `method` (optionally only for one id) throw `error`. */
  fail(method: MethodName, error: Error, id?: string): void;
  /** Lifts the failures of `method`. */
  heal(method: MethodName): void;
  client: ServiceClient;
}

export function fakeService(): FakeService {
  const payments = new Map<string, Payment>();
  const links = new Map<string, PaymentLink>();
  const disbursements = new Map<string, Disbursement>();
  const writeAnswers: FakeService['writeAnswers'] = {};
  const calls: FakeService['calls'] = [];
  const failures = new Map<MethodName, { error: Error; id: string | undefined }[]>();

  function enter(method: MethodName, id: string, ...rest: unknown[]): void {
    calls.push([method, id, ...rest]);
    for (const failure of failures.get(method) ?? []) {
      if (failure.id === undefined || failure.id === id) throw failure.error;
    }
  }
  function found<T>(map: Map<string, T>, id: string, what: string): T {
    const record = map.get(id);
    // The real client's 404 (ServiceNotFoundError); tests of that path register it with fail().
    if (record === undefined) throw new Error(`fake service holds no ${what} ${id}`);
    return record;
  }

  const methods: FakeServiceMethods = {
    async getPayment(paymentId) {
      enter('getPayment', paymentId);
      return Payment.parse(found(payments, paymentId, 'payment'));
    },
    async getPaymentLink(paymentLinkId) {
      enter('getPaymentLink', paymentLinkId);
      return PaymentLink.parse(found(links, paymentLinkId, 'payment link'));
    },
    async getDisbursement(disbursementId) {
      enter('getDisbursement', disbursementId);
      return Disbursement.parse(found(disbursements, disbursementId, 'disbursement'));
    },
    async recordExternalPayment(paymentLinkId, body) {
      enter('recordExternalPayment', paymentLinkId, body);
      return ExternalPaymentResult.parse(writeAnswers.recordExternalPayment);
    },
    async recordDebitMemo(paymentLinkId, body) {
      enter('recordDebitMemo', paymentLinkId, body);
      return DebitMemoResult.parse(writeAnswers.recordDebitMemo);
    },
    async voidExternalPayment() {
      throw new Error('voidExternalPayment: not faked');
    },
    async voidDebitMemo() {
      throw new Error('voidDebitMemo: not faked');
    },
  };

  return {
    payments,
    links,
    disbursements,
    writeAnswers,
    calls,
    fail(method, error, id) {
      failures.set(method, [...(failures.get(method) ?? []), { error, id }]);
    },
    heal(method) {
      failures.delete(method);
    },
    // The one cast: the activities take a whole ServiceClient, of which this implements what they call.
    client: methods as unknown as ServiceClient,
  };
}

/**
 * A MockActivityEnvironment whose SDK logger keeps quiet below ERROR: the failure tests fail activities on
 * purpose, and the SDK's 'Activity failed' warning for each would only bury real output.
 */
export function quietActivityEnvironment(info: Partial<Info> = {}): MockActivityEnvironment {
  return new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
}

/**
 * `env.run(activity, input)` with the activity's result type kept (the SDK's run cannot infer it from the
 * function alone, so its result would be unknown).
 */
export function runActivity<P extends unknown[], R>(
  env: MockActivityEnvironment,
  activity: (...args: P) => Promise<R>,
  ...args: P
): Promise<R> {
  return env.run<P, R, (...args: P) => Promise<R>>(activity, ...args);
}

export interface ActivityWorld {
  service: FakeService;
  ledger: EmbeddedLedger;
  deps: ActivityDependencies;
  /** Signed balances (debit positive) of the accounts given, by account. */
  balances(...accounts: AccountName[]): Promise<Record<string, number>>;
  close(): void;
}

/** The accounting date of reversals in these tests. */
export const TODAY = '2026-03-20';

export function activityWorld(overrides: Partial<ActivityDependencies> = {}): ActivityWorld {
  const service = fakeService();
  const ledger = EmbeddedLedger.open();
  const deps: ActivityDependencies = {
    service: service.client,
    ledger,
    logger: silentLogger,
    timeZone: 'UTC',
    today: () => TODAY,
    ...overrides,
  };
  return {
    service,
    ledger,
    deps,
    async balances(...accounts) {
      const out: Record<string, number> = {};
      for (const account of accounts) out[account] = await ledger.balanceOf(account);
      return out;
    },
    close: () => ledger.close(),
  };
}

/** A Payment as the service sends it (2.2), card by default; charged its amount unless told (no surcharge). */
export function paymentRecord(overrides: Partial<Payment> & Pick<Payment, 'id'>): Payment {
  const { id, ...rest } = overrides;
  return {
    id,
    status: 'SUCCEEDED',
    fees: [],
    amountInCents: 10_000,
    chargedAmountInCents: rest.amountInCents ?? 10_000,
    platformFeeInCents: 0,
    paymentLinkId: null,
    paymentMethod: cardMethod,
    disbursement: null,
    refunds: [],
    createdAt: Date.UTC(2026, 2, 3, 15, 30),
    estimatedDisbursementDate: null,
    ...rest,
  };
}

export const cardMethod: Payment['paymentMethod'] = {
  id: 'pm_card',
  type: 'Card',
  achDetails: null,
  cardDetails: { brand: 'visa', last4: '4242', holderName: 'A Payer', expMonth: '12', expYear: '2030' },
  serviceBalanceDetails: null,
  billingDetails: null,
};

export const achMethod: Payment['paymentMethod'] = {
  id: 'pm_ach',
  type: 'ACH',
  achDetails: { bankName: 'Test Bank', routingNumber: '110000000', accountNumberLastFour: '6789' },
  cardDetails: null,
  serviceBalanceDetails: null,
  billingDetails: null,
};

/** A PaymentLink as the service sends it (2.1), with no payments or records unless given. */
export function linkRecord(overrides: Partial<PaymentLink> & Pick<PaymentLink, 'id'>): PaymentLink {
  const { id, ...rest } = overrides;
  return {
    id,
    name: `Invoice ${id}`,
    requestedAmountCents: 10_000,
    dueDate: null,
    status: 'ACTIVE',
    payments: [],
    externalPayments: [],
    debitMemos: [],
    debitMemoAmountCents: 0,
    customerId: 'cus_1',
    url: `https://pay.service.example/${id}`,
    completedAmountCents: 0,
    feePassthroughPercent: null,
    creditCardEnabled: null,
    achEnabled: null,
    amountEditable: false,
    reusable: false,
    ...rest,
  };
}

/** A Disbursement as the service sends it (decision “Disbursement statuses”). */
export function disbursementRecord(
  overrides: Partial<Disbursement> & Pick<Disbursement, 'id' | 'amountInCents' | 'paymentIds'>,
): Disbursement {
  return {
    status: 'PENDING',
    bankName: 'Test Bank',
    accountNumberLastFour: '6789',
    createdAt: '2026-03-05',
    paidAt: null,
    ...overrides,
  };
}

/** An entry as "key date Dr/Cr lines", for comparing whole entries computed by hand. */
export function entryShape(entry: {
  key: string;
  date: string;
  lines: readonly { account: string; amountCents: number }[];
  reverses?: string | null;
}): { key: string; date: string; lines: [string, number][]; reverses: string | null } {
  return {
    key: entry.key,
    date: entry.date,
    lines: entry.lines.map((l) => [l.account, l.amountCents]),
    reverses: entry.reverses ?? null,
  };
}
