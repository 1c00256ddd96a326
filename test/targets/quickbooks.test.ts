import { FaultError, QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.js';
import { verifyOrWait } from '../../src/runtime/targets/accounting-targets.js';
import { type AccountRole, defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { amountToCents, centsToAmount } from '../../src/targets/decimal-amounts.js';
import { TargetUnavailableError } from '../../src/targets/errors.js';
import { OAuthTokenStore, QuickBooksTarget, TokenCipher } from '../../src/targets/quickbooks/index.js';
import { QuickBooksLimiter, quickBooksBudget } from '../../src/targets/quickbooks/limiter.js';
import type { MatchingPolicy } from '../../src/targets/quickbooks/parties.js';
import type { PushContext, RemoteRecord, TargetDocument } from '../../src/targets/target-port.js';
import { quickBooksBooksyncChart } from '../support/booksync-charts.js';
import { SealedTokenInMemory } from '../support/sealed-token-in-memory.js';
import { describeTargetContract, documentsForContract } from './target-contract.js';

// The QuickBooks Online adapter against the stateful double, which checks every request and response
// against Intuit's XSDs (double.violations stays empty).

const double = new QuickBooksDouble({ latencyMs: 5 });
const cipher = new TokenCipher('test-secret-for-quickbooks-tokens');
const noIndex: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };

interface Company {
  realmId: string;
  /** The company's one limiter: every adapter of it shares it, or together they pass QBO's limits. */
  limiter: QuickBooksLimiter;
  storage: SealedTokenInMemory;
  target(matching?: MatchingPolicy): QuickBooksTarget;
  tokens: OAuthTokenStore[];
}

/** A QBO company connected to booksync: its sealed refresh token, and adapters (each a restarted worker). */
function company(): Company {
  // booksync's accounts already in place: these tests are about the adapter's documents, not set-up.
  const realmId = double.createRealm(undefined, { chart: quickBooksBooksyncChart });
  const storage = new SealedTokenInMemory(cipher.seal(double.connect(realmId)));
  const tokens: OAuthTokenStore[] = [];
  // One limiter per company with QBO's budget, as the worker-wide registry gives one per realm.
  const limiter = new QuickBooksLimiter(quickBooksBudget);
  return {
    realmId,
    limiter,
    storage,
    tokens,
    target(matching: MatchingPolicy = 'create') {
      const tokenStore = new OAuthTokenStore({
        tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
        clientId: double.clientId,
        clientSecret: double.clientSecret,
        storage,
        cipher,
      });
      tokens.push(tokenStore);
      return new QuickBooksTarget({
        baseUrl: double.url,
        realmId,
        tokenStore,
        accounts: defaultAccountCodes,
        matching,
        limiter,
      });
    },
  };
}

/** What the push activity does under Temporal: TargetUnavailableError is retried. */
async function pushRetried(target: QuickBooksTarget, doc: TargetDocument, context: PushContext = noIndex) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await target.push(doc, context);
    } catch (error) {
      if (!(error instanceof TargetUnavailableError) || attempt > 20) throw error;
    }
  }
}

function countByKey(realmId: string, key: string): number {
  let count = 0;
  for (const entity of [
    'Invoice',
    'Payment',
    'Deposit',
    'JournalEntry',
    'RefundReceipt',
    'SalesReceipt',
    'Bill',
    'BillPayment',
  ]) {
    for (const record of double.all(realmId, entity)) {
      if (String(record.PrivateNote ?? '').includes(`booksync key=${key} `)) count++;
    }
  }
  return count;
}

function idOf(remoteId: string | undefined): string {
  return String(remoteId).split(':').at(-1) ?? '';
}

beforeAll(async () => {
  await double.start();
});

afterAll(async () => {
  await double.stop();
});

afterEach(() => {
  double.calm();
  expect(double.violations).toEqual([]);
});

/** The error a push ends with (the test fails if it succeeds). */
async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the push to fail');
}

describe('QuickBooks money', () => {
  it('converts cents to decimals and back exactly', () => {
    expect(centsToAmount(1005)).toBe(10.05);
    expect(centsToAmount(-7)).toBe(-0.07);
    expect(centsToAmount(123_456_789_01)).toBe(123456789.01);
    expect(JSON.stringify(centsToAmount(30))).toBe('0.3');
    expect(amountToCents(0.1 + 0.2)).toBe(30);
    expect(amountToCents(10.05)).toBe(1005);
    expect(amountToCents(-1234.5)).toBe(-123450);
    for (let cents = -1000; cents <= 100_000; cents += 37)
      expect(amountToCents(centsToAmount(cents))).toBe(cents);
  });

  it('seals the refresh token (AES-256-GCM) so it is unreadable without the secret', () => {
    const sealed = cipher.seal('rt-abc');
    expect(sealed).not.toContain('rt-abc');
    expect(cipher.open(sealed)).toBe('rt-abc');
    expect(() => new TokenCipher('another-secret-entirely').open(sealed)).toThrow();
  });
});

let contractCompany: Company;
describe('contract', () => {
  beforeAll(() => {
    contractCompany = company();
  });
  describeTargetContract('quickbooks (XSD-checked double)', () => ({
    target: contractCompany.target(),
    fresh: async () => contractCompany.target(),
    countByKey: async (key) => countByKey(contractCompany.realmId, key),
  }));
});

describe('QuickBooks Online target', () => {
  it('verifies every mapped account, one line per missing account', async () => {
    const c = company();
    await c.target().verify();
    const tokenStore = c.tokens[0] as OAuthTokenStore;
    const wrong = new QuickBooksTarget({
      baseUrl: double.url,
      realmId: c.realmId,
      tokenStore,
      accounts: { ...defaultAccountCodes, Refunds: '4999', BankCharges: '6999' },
      matching: 'create',
      limiter: c.limiter,
    });
    await expect(wrong.verify()).rejects.toThrow(
      /Refunds: no QuickBooks account with number or id 4999\n.*BankCharges/,
    );
    // A company upgrading without the new role's account (nor a mapping of it) is stopped, the role named.
    const upgraded = new QuickBooksTarget({
      baseUrl: double.url,
      realmId: c.realmId,
      tokenStore,
      accounts: { ...defaultAccountCodes, DiscountsAndWriteOffs: '4031' },
      matching: 'create',
      limiter: c.limiter,
    });
    await expect(upgraded.verify()).rejects.toThrow(
      /DiscountsAndWriteOffs: no QuickBooks account with number or id 4031/,
    );
  });

  it('makes one document per key: concurrent pushes share the requestid, a lost answer is replayed', async () => {
    const c = company();
    const docs = documentsForContract();
    await c.target().push(docs.invoice, noIndex);
    // Two workers push the same payment at once: both miss it by key, both create with one requestid.
    const workers = [c.target(), c.target()];
    for (const worker of workers) await worker.verify();
    const [a, b] = await Promise.all(workers.map((w) => w.push(docs.payment, noIndex)));
    expect(a?.remoteIds).toEqual(b?.remoteIds);
    expect(double.all(c.realmId, 'Payment')).toHaveLength(1);
    const posts = double.requests.filter(
      (r) => r.realmId === c.realmId && r.method === 'POST' && r.url.includes('/payment?'),
    );
    const requestIds = new Set(posts.map((r) => new URL(r.url, double.url).searchParams.get('requestid')));
    expect(posts.length).toBe(2);
    expect(requestIds.size).toBe(1);

    // The create succeeds at QBO and its answer is lost: the retry replays it.
    const more = documentsForContract();
    await c.target().push(more.invoice, noIndex);
    double.loseResponses(1);
    await expect(c.target().push(more.payment, noIndex)).rejects.toThrow(TargetUnavailableError);
    const again = await c.target().push(more.payment, noIndex);
    expect(again.created).toBe(false);
    expect(countByKey(c.realmId, more.payment.key)).toBe(1);
  });

  it('moves invoice balances with payments, reopens on a void, and keeps QBO accounts equal to the ledger', async () => {
    const c = company();
    const target = c.target();
    const docs = documentsForContract();
    const pushed = new Map<string, RemoteRecord>();
    const context: PushContext = {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
    };
    const second: TargetDocument = {
      ...docs.payment,
      key: `payment:pay_${docs.run}_2`,
      amountCents: 70_00,
      lines: [
        { role: 'ProcessorClearing', amountCents: 70_00 },
        { role: 'AccountsReceivable', amountCents: -70_00 },
      ],
      contentHash: '4'.repeat(64),
    };
    const reversal: TargetDocument = {
      ...docs.reversal,
      key: `reversal:${second.key}`,
      reverses: second.key,
      lines: second.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    };
    const fee: TargetDocument = {
      ...docs.payment,
      key: `payment-fee:pay_${docs.run}`,
      kind: 'payment-fee',
      amountCents: 1_75,
      lines: [
        { role: 'ProcessingFees', amountCents: 1_75 },
        { role: 'ProcessorClearing', amountCents: -1_75 },
      ],
    };
    const payout: TargetDocument = {
      ...docs.payment,
      key: `disbursement-pending:dis_${docs.run}`,
      kind: 'disbursement-pending',
      amountCents: 48_25,
      lines: [
        { role: 'PayoutsInTransit', amountCents: 48_25 },
        { role: 'ProcessorClearing', amountCents: -48_25 },
      ],
    };
    const ledger = [docs.invoice, docs.payment, second, reversal, fee, payout];
    const invoiceId = () => idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const balance = () => double.get(c.realmId, 'Invoice', invoiceId())?.Balance;
    for (const doc of ledger) {
      pushed.set(doc.key, await target.push(doc, context));
      if (doc.key === docs.payment.key) expect(balance()).toBe(70);
      if (doc.key === second.key) expect(balance()).toBe(0);
      if (doc.key === reversal.key) expect(balance()).toBe(70);
    }
    const voided = double.get(c.realmId, 'Payment', idOf(pushed.get(second.key)?.remoteIds[0]));
    expect(voided?.TotalAmt).toBe(0);
    expect(pushed.get(reversal.key)?.remoteIds[0]).toMatch(/^void:Payment:/);
    expect(double.all(c.realmId, 'Deposit')).toHaveLength(1);
    expect(double.all(c.realmId, 'JournalEntry')).toHaveLength(1);

    // The books agree: each role's ledger balance is the QBO account's balance through the mapping.
    const byRole = new Map<AccountRole, number>();
    for (const doc of ledger)
      for (const l of doc.lines) byRole.set(l.role, (byRole.get(l.role) ?? 0) + l.amountCents);
    for (const [role, cents] of byRole)
      expect([role, double.balanceOf(c.realmId, defaultAccountCodes[role])]).toEqual([role, cents]);
  });

  it('pushes a business day of every kind: QBO account balances equal the ledger through the mapping', async () => {
    const c = company();
    const target = c.target();
    const run = documentsForContract().run;
    const customer = { serviceId: `cus_${run}`, name: `Day Customer ${run}`, email: `${run}@day.test` };
    const vendor = { serviceId: `ven_${run}`, name: `Day Vendor ${run}`, email: null };
    const a = { paymentLinkId: `pla_${run}`, number: `A-${run}` };
    const b = { paymentLinkId: `plb_${run}`, number: `A rather long invoice name ${run}` };
    const bill = { billId: `bill_${run}`, number: null };
    let n = 0;
    const doc = (
      key: string,
      kind: TargetDocument['kind'],
      debit: AccountRole,
      credit: AccountRole,
      cents: number,
      extra: Partial<TargetDocument> = {},
    ): TargetDocument => ({
      key,
      kind,
      date: '2026-11-04',
      description: `${kind} ${key}`,
      amountCents: cents,
      lines: [
        { role: debit, amountCents: cents },
        { role: credit, amountCents: -cents },
      ],
      contentHash: String(n++).padStart(64, '0'),
      ...extra,
    });
    const onA = { invoice: a, customer, reference: `ref_${run}` };
    const onB = { invoice: b, customer, reference: `chk_${run}` };
    const adjustment = doc(
      `invoice-adjustment:${a.paymentLinkId}:1`,
      'invoice-adjustment',
      'AccountsReceivable',
      'Revenue',
      10_00,
      onA,
    );
    const day: TargetDocument[] = [
      doc(`invoice:${a.paymentLinkId}`, 'invoice', 'AccountsReceivable', 'Revenue', 120_00, onA),
      doc(`invoice:${b.paymentLinkId}`, 'invoice', 'AccountsReceivable', 'Revenue', 80_00, onB),
      adjustment,
      doc(`debit-memo:dm_${run}`, 'debit-memo', 'AccountsReceivable', 'FeeIncome', 5_00, onA),
      doc(`payment:pay_${run}`, 'payment', 'ProcessorClearing', 'AccountsReceivable', 50_00, onA),
      doc(`payment-fee:pay_${run}`, 'payment-fee', 'ProcessingFees', 'ProcessorClearing', 1_75, onA),
      doc(`refund:re_${run}`, 'refund', 'Refunds', 'ProcessorClearing', 20_00, onA),
      doc(`refund-reopen:re_${run}`, 'refund-reopen', 'AccountsReceivable', 'Refunds', 20_00, onA),
      doc(
        `external-payment:ep_${run}`,
        'external-payment',
        'ChecksToDeposit',
        'AccountsReceivable',
        80_00,
        onB,
      ),
      doc(`check-cleared:cd_${run}`, 'check-cleared', 'OperatingBank', 'ChecksToDeposit', 80_00, onB),
      doc(
        `disbursement-pending:dis_${run}`,
        'disbursement-pending',
        'PayoutsInTransit',
        'ProcessorClearing',
        28_25,
      ),
      doc(`disbursement-paid:dis_${run}`, 'disbursement-paid', 'OperatingBank', 'PayoutsInTransit', 28_25),
      doc(`bill:${bill.billId}`, 'bill', 'BillExpenses', 'AccountsPayable', 300_00, { bill, vendor }),
      doc(
        `bill-payment-sent:bp_${run}`,
        'bill-payment-sent',
        'AccountsPayable',
        'OutgoingPaymentsClearing',
        300_00,
        { bill, vendor },
      ),
      doc(
        `bill-payment-paid:bp_${run}`,
        'bill-payment-paid',
        'OutgoingPaymentsClearing',
        'OperatingBank',
        300_00,
        { bill, vendor },
      ),
      {
        ...adjustment,
        key: `reversal:${adjustment.key}`,
        kind: 'reversal',
        reverses: adjustment.key,
        lines: adjustment.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
        contentHash: 'e'.repeat(64),
      },
    ];
    const pushed = new Map<string, RemoteRecord>();
    const context: PushContext = {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
    };
    for (const d of day) pushed.set(d.key, await target.push(d, context));
    const entityOf = (key: string) => pushed.get(key)?.remoteIds[0]?.split(':')[0];
    expect(day.map((d) => [d.kind, entityOf(d.key)])).toEqual([
      ['invoice', 'Invoice'],
      ['invoice', 'Invoice'],
      // A raise is a charge invoice of its own (the invoice's Balance and it owe what the link asks).
      ['invoice-adjustment', 'Invoice'],
      ['debit-memo', 'Invoice'],
      ['payment', 'Payment'],
      ['payment-fee', 'JournalEntry'],
      ['refund', 'RefundReceipt'],
      ['refund-reopen', 'Invoice'],
      ['external-payment', 'Payment'],
      ['check-cleared', 'Deposit'],
      ['disbursement-pending', 'Deposit'],
      ['disbursement-paid', 'Deposit'],
      ['bill', 'Bill'],
      ['bill-payment-sent', 'BillPayment'],
      ['bill-payment-paid', 'JournalEntry'],
      // Its reversal in the same open month: QBO's void of that invoice.
      ['reversal', 'void'],
    ]);
    const byRole = new Map<AccountRole, number>();
    for (const d of day)
      for (const l of d.lines) byRole.set(l.role, (byRole.get(l.role) ?? 0) + l.amountCents);
    for (const role of Object.keys(defaultAccountCodes) as AccountRole[]) {
      expect([role, double.balanceOf(c.realmId, defaultAccountCodes[role])]).toEqual([
        role,
        byRole.get(role) ?? 0,
      ]);
    }
    const invoiceB = double.get(
      c.realmId,
      'Invoice',
      idOf(pushed.get(`invoice:${b.paymentLinkId}`)?.remoteIds[0]),
    );
    expect(invoiceB?.Balance).toBe(0);
    expect(String(invoiceB?.DocNumber)).toHaveLength(21);
    const check = double.get(
      c.realmId,
      'Payment',
      idOf(pushed.get(`external-payment:ep_${run}`)?.remoteIds[0]),
    );
    expect(check?.PaymentRefNum).toBe(`chk_${run}`);
    // Everything again, from a restarted worker: nothing new.
    const creates = double.creates(c.realmId);
    for (const d of day) expect((await c.target().push(d, noIndex)).created).toBe(false);
    expect(double.creates(c.realmId)).toBe(creates);
  });

  it('books a sale with no invoice as a SalesReceipt into the clearing account, on Revenue, found again by key', async () => {
    const c = company();
    const target = c.target();
    const run = documentsForContract().run;
    const customer = { serviceId: `cus_${run}`, name: `Shop Customer ${run}`, email: null };
    const sale = (id: string, cents: number, extra: Partial<TargetDocument> = {}): TargetDocument => ({
      key: `sale:${id}`,
      kind: 'sale',
      date: '2026-11-04',
      description: `Sale ${id}`,
      amountCents: cents,
      lines: [
        { role: 'ProcessorClearing', amountCents: cents },
        { role: 'Revenue', amountCents: -cents },
      ],
      contentHash: id.padStart(64, '0').slice(-64),
      reference: id,
      ...extra,
    });
    // A reusable link's payment (its customer known) and a payment on no link (no customer).
    const onLink = sale(`pay_${run}_1`, 25_00, {
      customer,
      invoice: { paymentLinkId: `pl_${run}`, number: `Shop ${run}` },
    });
    const walkIn = sale(`pay_${run}_2`, 40_00);
    const first = await target.push(onLink, noIndex);
    const second = await target.push(walkIn, noIndex);
    expect([first.remoteIds[0]?.split(':')[0], second.remoteIds[0]?.split(':')[0]]).toEqual([
      'SalesReceipt',
      'SalesReceipt',
    ]);
    const receipt = double.get(c.realmId, 'SalesReceipt', idOf(first.remoteIds[0]));
    const clearing = double
      .all(c.realmId, 'Account')
      .find((a) => a.AcctNum === defaultAccountCodes.ProcessorClearing);
    expect(receipt?.DepositToAccountRef).toMatchObject({ value: clearing?.Id });
    expect(receipt?.TotalAmt).toBe(25);
    expect(receipt?.TxnTaxDetail).toBeUndefined();
    expect(receipt?.PaymentRefNum).toBe(`pay_${run}_1`);
    const refOf = (ref: unknown) => String((ref as { value?: string } | undefined)?.value);
    const named = double.get(c.realmId, 'Customer', refOf(receipt?.CustomerRef));
    expect(named?.DisplayName).toBe(customer.name);
    const [line] = (receipt?.Line ?? []) as { SalesItemLineDetail?: { ItemRef?: unknown } }[];
    const item = double.get(c.realmId, 'Item', refOf(line?.SalesItemLineDetail?.ItemRef));
    expect(item?.Name).toBe('booksync Revenue');
    expect(double.get(c.realmId, 'SalesReceipt', idOf(second.remoteIds[0]))?.CustomerRef).toBeUndefined();
    // QBO's books: the money in Undeposited Funds, the sale in income, nothing in A/R.
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(65_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.Revenue)).toBe(-65_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(0);
    // A second push, from a restarted worker: found by its key (DocNumber tag and marker), nothing made.
    const creates = double.creates(c.realmId);
    const again = await c.target().push(onLink, noIndex);
    expect(again).toMatchObject({ created: false, remoteIds: first.remoteIds });
    expect(await c.target().find(walkIn.key)).toMatchObject({ remoteIds: second.remoteIds });
    expect(double.creates(c.realmId)).toBe(creates);
    expect(countByKey(c.realmId, onLink.key)).toBe(1);
    // Returned in the same month (a failed ACH debit): QBO's own void of the sales receipt.
    const reversal = await target.push(
      {
        ...walkIn,
        key: `reversal:${walkIn.key}`,
        kind: 'reversal',
        date: '2026-11-06',
        lines: walkIn.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
        contentHash: 'f'.repeat(64),
        reverses: walkIn.key,
        originalDate: walkIn.date,
      },
      noIndex,
    );
    expect(reversal.remoteIds).toEqual([`void:SalesReceipt:${idOf(second.remoteIds[0])}`]);
    expect(double.isVoided(c.realmId, 'SalesReceipt', idOf(second.remoteIds[0]))).toBe(true);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(25_00);
  });

  it('follows an account-mapping change: booksync’s item posts to the newly mapped income account', async () => {
    const c = company();
    const first = documentsForContract();
    await c.target().push(first.invoice, noIndex);
    const remapped = new QuickBooksTarget({
      baseUrl: double.url,
      realmId: c.realmId,
      tokenStore: c.tokens[0] as OAuthTokenStore,
      accounts: { ...defaultAccountCodes, Revenue: defaultAccountCodes.FeeIncome },
      matching: 'create',
      limiter: c.limiter,
    });
    const second = documentsForContract();
    await remapped.push(second.invoice, noIndex);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.Revenue)).toBe(-120_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.FeeIncome)).toBe(-120_00);
    expect(double.all(c.realmId, 'Item')).toHaveLength(1);
  });

  it('the double refuses, loudly, a request that breaks Intuit’s XSD', async () => {
    const c = company();
    await c.target().verify();
    const token = await (c.tokens[0] as OAuthTokenStore).accessToken();
    const response = await fetch(
      `${double.url}/v3/company/${c.realmId}/payment?minorversion=75&requestid=x1`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ CustomerRef: { value: '1' }, TotalAmount: 10, TotalAmt: '10' }),
      },
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { Fault: { Error: { Message: string; Detail: string }[] } };
    expect(body.Fault.Error[0]?.Message).toBe('XSD contract violation');
    expect(double.violations).toEqual([
      'request POST payment: $.Payment.TotalAmount: no element or attribute TotalAmount in Payment',
      'request POST payment: $.Payment.TotalAmt: expected a number (xs:decimal), got "10"',
    ]);
    double.violations.length = 0;
  });

  it('reverses a paid invoice by a journal (QBO voids no invoice a payment is applied to), an unpaid one by its void, and books the link again beside it', async () => {
    const c = company();
    const target = c.target();
    const docs = documentsForContract();
    const reversalOf = (of: TargetDocument, hash: string): TargetDocument => ({
      ...of,
      key: `reversal:${of.key}`,
      kind: 'reversal',
      reverses: of.key,
      lines: of.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
      contentHash: hash.repeat(64),
    });
    const invoice = await target.push(docs.invoice, noIndex);
    await target.push(docs.payment, noIndex);
    // Paid: a journal Dr Revenue / Cr A/R for the customer, the invoice and its payment left as they are.
    const reversed = await target.push(reversalOf(docs.invoice, '9'), noIndex);
    expect(reversed.remoteIds[0]).toMatch(/^JournalEntry:/);
    const qbo = double.get(c.realmId, 'Invoice', idOf(invoice.remoteIds[0]));
    expect([qbo?.TotalAmt, qbo?.Balance]).toEqual([120, 70]);
    expect(double.isVoided(c.realmId, 'Invoice', idOf(invoice.remoteIds[0]))).toBe(false);
    await target.push(docs.reversal, noIndex);
    // The payment voided: 120.00 owed on the invoice, 120.00 credited by the journal.
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(0);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.Revenue)).toBe(0);
    expect(await c.target().find(`reversal:${docs.invoice.key}`)).toMatchObject({
      remoteIds: reversed.remoteIds,
    });
    // Unpaid: voided in place.
    const again = await target.push({ ...docs.invoice, key: `${docs.invoice.key}#2` }, noIndex);
    const rebooked = double.get(c.realmId, 'Invoice', idOf(again.remoteIds[0]));
    expect(rebooked?.DocNumber).toBe(`${docs.invoice.invoice?.number}#2`);
    expect(rebooked?.Balance).toBe(120);
    const voided = await target.push(
      reversalOf({ ...docs.invoice, key: `${docs.invoice.key}#2` }, '8'),
      noIndex,
    );
    expect(voided.remoteIds).toEqual([`void:${again.remoteIds[0]}`]);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(0);
  });

  it('books bills and bill payments, and voids a returned bill payment (the bill is open again)', async () => {
    const c = company();
    const target = c.target();
    const run = documentsForContract().run;
    const vendor = { serviceId: `ven_${run}`, name: `Vendor ${run}`, email: null };
    const bill: TargetDocument = {
      key: `bill:bill_${run}`,
      kind: 'bill',
      date: '2026-11-02',
      description: 'Bill',
      amountCents: 300_00,
      lines: [
        { role: 'BillExpenses', amountCents: 300_00 },
        { role: 'AccountsPayable', amountCents: -300_00 },
      ],
      contentHash: 'a'.repeat(64),
      bill: { billId: `bill_${run}`, number: `V-${run}` },
      vendor,
    };
    const sent: TargetDocument = {
      ...bill,
      key: `bill-payment-sent:bp_${run}`,
      kind: 'bill-payment-sent',
      lines: [
        { role: 'AccountsPayable', amountCents: 300_00 },
        { role: 'OutgoingPaymentsClearing', amountCents: -300_00 },
      ],
      contentHash: 'b'.repeat(64),
    };
    const returned: TargetDocument = {
      ...sent,
      key: `reversal:${sent.key}`,
      kind: 'reversal',
      reverses: sent.key,
      lines: sent.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
      contentHash: 'c'.repeat(64),
    };
    const b = await target.push(bill, noIndex);
    const qboBill = () => double.get(c.realmId, 'Bill', idOf(b.remoteIds[0]));
    expect(qboBill()?.DocNumber).toBe(`V-${run}`.slice(0, 21));
    await target.push(sent, noIndex);
    expect(qboBill()?.Balance).toBe(0);
    // Someone edits the bill payment in QBO meanwhile: the stale SyncToken is re-read and the write retried.
    double.editConcurrently(c.realmId, 'BillPayment', idOf((await target.find(sent.key))?.remoteIds[0]));
    const before = double.requests.length;
    const v = await target.push(returned, noIndex);
    expect(v.remoteIds[0]).toMatch(/^void:BillPayment:/);
    // The reversal's marker (the stale token's refusal, then the retry), then the void as Intuit documents a
    // bill payment's: nothing after it.
    const writes = double.requests
      .slice(before)
      .filter((r) => r.method === 'POST' && /\/billpayment\?/.test(r.url))
      .map((r) => new URL(r.url, double.url).searchParams.get('include') ?? 'update');
    expect(writes).toEqual(['update', 'update', 'void']);
    expect(double.isVoided(c.realmId, 'BillPayment', idOf(v.remoteIds[0]))).toBe(true);
    expect(qboBill()?.Balance).toBe(300);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.OutgoingPaymentsClearing)).toBe(0);
  });

  it('rides out a 429 storm and lost answers: nothing lost, nothing twice, never more than 10 in flight', async () => {
    const c = company();
    const workers = [c.target(), c.target(), c.target()];
    const batches = Array.from({ length: 12 }, () => documentsForContract());
    await Promise.all(batches.map((d, i) => pushRetried(workers[i % 3] as QuickBooksTarget, d.invoice)));
    double.throttle(25);
    double.loseResponses(4);
    await Promise.all(
      batches.map((d, i) => pushRetried(workers[(i + 1) % 3] as QuickBooksTarget, d.payment)),
    );
    await Promise.all(
      batches.map((d, i) => pushRetried(workers[(i + 2) % 3] as QuickBooksTarget, d.reversal)),
    );
    for (const d of batches) {
      for (const doc of [d.invoice, d.payment])
        expect([doc.key, countByKey(c.realmId, doc.key)]).toEqual([doc.key, 1]);
    }
    expect(double.all(c.realmId, 'Payment')).toHaveLength(12);
    expect(double.all(c.realmId, 'Invoice').every((i) => i.Balance === 120)).toBe(true);
    expect(double.maxInFlight(c.realmId)).toBeGreaterThan(1);
    expect(double.maxInFlight(c.realmId)).toBeLessThanOrEqual(10);
  });

  it('says how long to wait when throttled, and keeps QBO’s own words in refusals', async () => {
    const c = company();
    const target = c.target();
    const docs = documentsForContract();
    double.throttle(1);
    const throttled = await failure(target.push(docs.invoice, noIndex));
    expect(throttled).toBeInstanceOf(TargetUnavailableError);
    expect((throttled as TargetUnavailableError).retryAfterMs).toBe(0);
    await target.push(docs.invoice, noIndex);
    double.failNext(
      new FaultError(
        400,
        'ValidationFault',
        'Business Validation Error',
        'The transaction date is in a closed period.',
        '6000',
      ),
    );
    const refused = await failure(target.push(docs.payment, noIndex));
    expect(refused.name).toBe('TargetRefusedError');
    expect(refused.message).toContain('The transaction date is in a closed period.');
    double.failNext(
      new FaultError(500, 'SystemFault', 'An application error has occurred', 'Try again later', '10000'),
    );
    expect((await failure(target.push(docs.payment, noIndex))).name).toBe('TargetUnavailableError');
    double.outage(200);
    expect((await failure(target.push(docs.payment, noIndex))).name).toBe('TargetUnavailableError');
    await new Promise((r) => setTimeout(r, 250));
    expect((await target.push(docs.payment, noIndex)).created).toBe(true);
  });

  it('refreshes the access token mid-run invisibly, once for concurrent callers, saving each rotated token sealed', async () => {
    const c = company();
    const target = c.target();
    const batches = Array.from({ length: 6 }, () => documentsForContract());
    await Promise.all(batches.slice(0, 3).map((d) => target.push(d.invoice, noIndex)));
    const grants = double.refreshGrants;
    const sealedBefore = c.storage.sealed;
    double.expireAccessTokens();
    await Promise.all(batches.slice(3).map((d) => target.push(d.invoice, noIndex)));
    expect(double.refreshGrants).toBe(grants + 1);
    expect(c.storage.sealed).not.toBe(sealedBefore);
    expect(c.storage.sealed).not.toMatch(/rt-/);
  });

  it('verifies a revoked connection as disconnected, not as a configuration problem: the worker starts (verifyOrWait)', async () => {
    const c = company();
    double.revoke(c.realmId);
    const target = c.target();
    const error = await failure(target.verify());
    expect(error.name).toBe('TargetDisconnectedError');
    expect(await verifyOrWait(target, silentLogger)).toBe('waiting');
  });

  it('flags a revoked connection with the command that fixes it, and recovers after reconnecting', async () => {
    const c = company();
    const target = c.target();
    const docs = documentsForContract();
    await target.push(docs.invoice, noIndex);
    double.revoke(c.realmId);
    const error = await failure(target.push(docs.payment, noIndex));
    expect(error.name).toBe('TargetDisconnectedError');
    expect(error.message).toMatch(/invalid_grant.*run booksync targets connect quickbooks/);
    // `booksync targets connect quickbooks`: a new consent, its code exchanged and the refresh token stored.
    await c.tokens[0]?.connect(double.authorize(c.realmId), 'http://127.0.0.1:8765/callback');
    expect((await target.push(docs.payment, noIndex)).created).toBe(true);
  });

  it('numbers a second link of the same name apart (name + digest of its key), and finds both again', async () => {
    const c = company();
    const first = documentsForContract();
    const second = documentsForContract();
    const shared = { ...second.invoice.invoice, number: first.invoice.invoice?.number ?? '' } as NonNullable<
      TargetDocument['invoice']
    >;
    const again: TargetDocument = { ...second.invoice, invoice: shared };
    const a = await c.target().push(first.invoice, noIndex);
    const b = await c.target().push(again, noIndex);
    const numbers = [a, b].map((r) => double.get(c.realmId, 'Invoice', idOf(r.remoteIds[0]))?.DocNumber);
    expect(numbers[0]).toBe(shared.number);
    expect(numbers[1]).toMatch(new RegExp(`^${shared.number.slice(0, 16)}-[a-z2-7]{4}$`));
    expect((await c.target().push(again, noIndex)).created).toBe(false);
    expect(countByKey(c.realmId, again.key)).toBe(1);
  });

  it('pushes a backlog in batches of at most 30: payments wait for their invoice’s batch, a crash or a lost answer makes nothing twice', async () => {
    const c = company();
    const sets = Array.from({ length: 16 }, () => documentsForContract());
    const backlog = sets.flatMap((d) => [d.invoice, d.payment]);
    backlog.push(sets[0]?.reversal as TargetDocument);
    const before = double.requests.length;
    const outcomes = await c.target().pushMany(backlog, noIndex);
    const results = outcomes.map((o) => {
      if (o instanceof Error) throw o;
      return o;
    });
    expect(results.every((r) => r.created)).toBe(true);
    // Each payment is a Payment applied to its invoice (not a journal made for want of the invoice).
    expect(
      results.filter((r) => r.key.startsWith('payment:')).map((r) => r.remoteIds[0]?.split(':')[0]),
    ).toEqual(Array(16).fill('Payment'));
    const invoice = double.get(c.realmId, 'Invoice', idOf(results[2]?.remoteIds[0]));
    expect(invoice?.Balance).toBe(70);
    // The voided first payment: its invoice is owed in full again.
    expect(double.get(c.realmId, 'Invoice', idOf(results[0]?.remoteIds[0]))?.Balance).toBe(120);
    const batched = double.requests.length - before;
    // Two look-up batches (32 keys, 30 a batch; every key may exist here), the 16 customers (10 a chunk: their
    // names' holders, then the creates), the invoices' numbers, the invoices, the payments that need them.
    expect(double.batches(c.realmId)).toBe(2 + 2 * 2 + 1 + 1 + 1);
    // The same backlog one by one, in another company: batching takes far fewer requests.
    const other = company();
    const start = double.requests.length;
    for (const doc of backlog) await other.target().push(doc, noIndex);
    expect(batched).toBeLessThan((double.requests.length - start) * 0.75);

    // A worker killed after the batch create, before its index write: the next run finds every document.
    const creates = double.creates(c.realmId);
    const again = await c.target().pushMany(backlog, noIndex);
    expect(again.map((o) => (o instanceof Error ? o.message : o.created))).toEqual(backlog.map(() => false));
    expect(double.creates(c.realmId)).toBe(creates);

    // A batch whose answer is lost is sent again with the same requestid: QBO replays it.
    const more = Array.from({ length: 3 }, () => documentsForContract()).flatMap((d) => [
      d.invoice,
      d.payment,
    ]);
    double.loseResponses(1);
    const lost = await c.target().pushMany(more, noIndex);
    expect(lost.every((o) => o instanceof TargetUnavailableError)).toBe(true);
    const retried = await c.target().pushMany(more, noIndex);
    expect(retried.every((o) => !(o instanceof Error))).toBe(true);
    // One record per key (a void carries its reversal's marker on the voided payment).
    for (const doc of [...backlog, ...more]) expect(countByKey(c.realmId, doc.key), doc.key).toBe(1);
  });

  it('pushes a backlog no attempt ever wrote with no look-up: under half a request an entry', async () => {
    const c = company();
    const target = c.target();
    await target.verify();
    const backlog = Array.from({ length: 16 }, () => documentsForContract()).flatMap((d) => [
      d.invoice,
      d.payment,
    ]);
    const before = double.requests.length;
    const neverAttempted: PushContext = { mayExist: () => false, refusals: () => 0, pushed: () => null };
    const outcomes = await target.pushMany(backlog, neverAttempted);
    expect(outcomes.every((o) => !(o instanceof Error) && o.created)).toBe(true);
    // The customers (their names' holders, then the creates, 10 a chunk), the invoices' numbers, the
    // invoices, the payments: no batch looks a key up.
    expect(double.batches(c.realmId)).toBe(2 * 2 + 1 + 1 + 1);
    expect((double.requests.length - before) / backlog.length).toBeLessThanOrEqual(0.5);
    for (const doc of backlog) expect(countByKey(c.realmId, doc.key), doc.key).toBe(1);
  });

  it('matches customers per policy: an ambiguous match is refused, never guessed', async () => {
    const c = company();
    const docs = documentsForContract();
    const customer = docs.invoice.customer ?? { serviceId: '', name: '', email: null };
    double.seed(c.realmId, 'Customer', { DisplayName: customer.name });
    double.seed(c.realmId, 'Customer', {
      DisplayName: 'Someone Else',
      PrimaryEmailAddr: { Address: customer.email },
    });
    const refused = await failure(c.target('match-existing').push(docs.invoice, noIndex));
    expect(refused.message).toMatch(/2 QuickBooks customers match/);
    // Under 'create' the taken name gets the service id, and the accountant's customer is left alone.
    const created = await c.target('create').push(docs.invoice, noIndex);
    const invoice = double.get(c.realmId, 'Invoice', idOf(created.remoteIds[0]));
    const qboCustomer = double.get(
      c.realmId,
      'Customer',
      String((invoice?.CustomerRef as { value: string } | undefined)?.value),
    );
    expect(qboCustomer?.DisplayName).toBe(`${customer.name} (${customer.serviceId})`);
  });

  it('adopts an invoice keyed in QBO with the link’s number under match-existing, refuses it under create', async () => {
    const c = company();
    const docs = documentsForContract();
    const customer = double.seed(c.realmId, 'Customer', { DisplayName: docs.invoice.customer?.name });
    const item = double.seed(c.realmId, 'Item', {
      Name: 'Services',
      Type: 'Service',
      IncomeAccountRef: { value: '9' },
    });
    const existing = double.seed(c.realmId, 'Invoice', {
      DocNumber: docs.invoice.invoice?.number,
      CustomerRef: { value: customer.Id },
      Line: [
        {
          Amount: 120,
          DetailType: 'SalesItemLineDetail',
          SalesItemLineDetail: { ItemRef: { value: item.Id } },
        },
      ],
      TotalAmt: 120,
      Balance: 120,
    });
    const refused = await failure(c.target('create').push(docs.invoice, noIndex));
    expect(refused.message).toMatch(/already exists in QuickBooks .* 'create' does not adopt it/);
    const adopted = await c.target('match-existing').push(docs.invoice, noIndex);
    expect(adopted.remoteIds).toEqual([`Invoice:${existing.Id}`]);
    expect(double.all(c.realmId, 'Invoice')).toHaveLength(1);
    const payment = await c.target('match-existing').push(docs.payment, noIndex);
    expect(payment.created).toBe(true);
    expect(double.get(c.realmId, 'Invoice', existing.Id)?.Balance).toBe(70);
  });
});
