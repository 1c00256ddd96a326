import { QuickBooksDouble, type RealmOptions } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { OAuthTokenStore, TokenCipher } from '../../../src/targets/quickbooks/index.js';
import { quickBooksBooksyncChart } from '../../support/booksync-charts.js';
import { SealedTokenInMemory } from '../../support/sealed-token-in-memory.js';

// QuickBooks Online's rules, each against the double directly (packages/vendor-doubles/src/quickbooks/README.md: the rule,
// Intuit's source, where the double enforces it, and this test). Each test fails when its rule is turned off
// (QBO_DOUBLE_RULES_OFF=<rule>): the README's mutation check.

let clock = Date.now();
/** The clock the double's limits count on: each request moves it 150 ms, so the limits stay out of the way. */
let ticking = true;
const double = new QuickBooksDouble({ now: () => clock });
const cipher = new TokenCipher('test-secret-for-quickbooks-rules');

type Entity = Record<string, unknown>;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

interface Company {
  realmId: string;
  call(method: 'GET' | 'POST', path: string, query?: Record<string, string>, body?: unknown): Promise<Answer>;
  account(code: string): string;
}

let n = 0;
async function company(options: RealmOptions = {}): Promise<Company> {
  // booksync's accounts already in place: these tests are about QBO's rules, not set-up.
  const realmId = double.createRealm(undefined, { chart: quickBooksBooksyncChart, ...options });
  const tokens = new OAuthTokenStore({
    tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    storage: new SealedTokenInMemory(cipher.seal(double.connect(realmId))),
    cipher,
  });
  const token = await tokens.accessToken();
  return {
    realmId,
    async call(method, path, query = {}, body) {
      if (ticking) clock += 150;
      const url = new URL(`/v3/company/${realmId}/${path}`, double.url);
      for (const [k, v] of Object.entries({
        minorversion: '75',
        ...(method === 'POST' ? { requestid: `rules-${n++}` } : {}),
        ...query,
      }))
        url.searchParams.set(k, v);
      const response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? null : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    account(code) {
      const found = double.all(realmId, 'Account').find((a) => a.AcctNum === code);
      if (!found) throw new Error(`no account ${code}`);
      return found.Id;
    },
  };
}

/** The first Error of a Fault answer. */
function fault(answer: Answer): { status: number; code: string; Message: string; Detail: string } {
  const error = (answer.body.Fault as { Error: { code: string; Message: string; Detail: string }[] })
    ?.Error[0];
  return {
    status: answer.status,
    code: error?.code ?? '',
    Message: error?.Message ?? '',
    Detail: error?.Detail ?? '',
  };
}

function entityOf(
  answer: Answer,
  entity: string,
): Record<string, unknown> & { Id: string; SyncToken: string } {
  if (answer.status !== 200) throw new Error(`${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body[entity] as Record<string, unknown> & { Id: string; SyncToken: string };
}

const query = (c: Company, text: string) => c.call('GET', 'query', { query: text });

/** A customer, booksync's income item and a 120.00 invoice (its line's TaxCodeRef when given). */
async function invoiced(c: Company, name = `Customer ${n++}`, taxCode?: string) {
  const customer = entityOf(await c.call('POST', 'customer', {}, { DisplayName: name }), 'Customer');
  const item = entityOf(
    await c.call(
      'POST',
      'item',
      {},
      {
        Name: `Item ${n++}`,
        Type: 'Service',
        IncomeAccountRef: { value: c.account(defaultAccountCodes.Revenue) },
      },
    ),
    'Item',
  );
  const invoice = entityOf(
    await c.call(
      'POST',
      'invoice',
      {},
      {
        DocNumber: `INV-${n++}`,
        CustomerRef: { value: customer.Id },
        PrivateNote: 'booksync key=invoice:x hash=h',
        Line: [
          {
            Amount: 120,
            DetailType: 'SalesItemLineDetail',
            SalesItemLineDetail: {
              ItemRef: { value: item.Id },
              ...(taxCode ? { TaxCodeRef: { value: taxCode } } : {}),
            },
          },
        ],
      },
    ),
    'Invoice',
  );
  return { customer, item, invoice };
}

function paymentBody(c: Company, customerId: string, invoiceId: string, amount: number) {
  return {
    CustomerRef: { value: customerId },
    TotalAmt: amount,
    DepositToAccountRef: { value: c.account(defaultAccountCodes.ProcessorClearing) },
    PrivateNote: 'booksync key=payment:x hash=h',
    Line: [{ Amount: amount, LinkedTxn: [{ TxnId: invoiceId, TxnType: 'Invoice' }] }],
  };
}

/** A credit memo for the customer through the item (Intuit's CreditMemo: CustomerRef and Line). */
function creditMemoBody(customerId: string, itemId: string, amount: number) {
  return {
    DocNumber: `CM-${n++}`,
    CustomerRef: { value: customerId },
    PrivateNote: 'booksync key=invoice-adjustment:x:1 hash=h',
    Line: [
      {
        Amount: amount,
        DetailType: 'SalesItemLineDetail',
        SalesItemLineDetail: { ItemRef: { value: itemId } },
      },
    ],
  };
}

/** A credit memo applied to an invoice as QBO applies one: a Payment of 0 linking both for the amount. */
function applicationBody(customerId: string, invoiceId: string, creditMemoId: string, amount: number) {
  return {
    CustomerRef: { value: customerId },
    TotalAmt: 0,
    Line: [
      { Amount: amount, LinkedTxn: [{ TxnId: invoiceId, TxnType: 'Invoice' }] },
      { Amount: amount, LinkedTxn: [{ TxnId: creditMemoId, TxnType: 'CreditMemo' }] },
    ],
  };
}

async function paid(c: Company, amount = 120) {
  const { customer, invoice } = await invoiced(c);
  const payment = entityOf(
    await c.call('POST', 'payment', {}, paymentBody(c, customer.Id, invoice.Id, amount)),
    'Payment',
  );
  return { customer, invoice, payment };
}

async function vendorBill(c: Company) {
  const vendor = entityOf(await c.call('POST', 'vendor', {}, { DisplayName: `Vendor ${n++}` }), 'Vendor');
  const bill = entityOf(
    await c.call(
      'POST',
      'bill',
      {},
      {
        VendorRef: { value: vendor.Id },
        DocNumber: `B-${n++}`,
        Line: [
          {
            Amount: 300,
            DetailType: 'AccountBasedExpenseLineDetail',
            AccountBasedExpenseLineDetail: {
              AccountRef: { value: c.account(defaultAccountCodes.BillExpenses) },
            },
          },
        ],
      },
    ),
    'Bill',
  );
  return { vendor, bill };
}

function billPaymentBody(vendorId: string, billId: string, fromAccount: string) {
  return {
    VendorRef: { value: vendorId },
    PayType: 'Check',
    CheckPayment: { BankAccountRef: { value: fromAccount } },
    TotalAmt: 300,
    PrivateNote: 'booksync key=bill-payment-sent:x hash=h',
    Line: [{ Amount: 300, LinkedTxn: [{ TxnId: billId, TxnType: 'Bill' }] }],
  };
}

function depositBody(into: string, paymentIds: string[], amount = 120) {
  return {
    DepositToAccountRef: { value: into },
    Line: paymentIds.map((id) => ({ Amount: amount, LinkedTxn: [{ TxnId: id, TxnType: 'Payment' }] })),
  };
}

function journalBody(
  c: Company,
  debit: string,
  credit: string,
  entity?: { Type: string; EntityRef: { value: string } },
) {
  const line = (posting: 'Debit' | 'Credit', account: string) => ({
    Amount: 10,
    DetailType: 'JournalEntryLineDetail',
    JournalEntryLineDetail: {
      PostingType: posting,
      AccountRef: { value: c.account(account) },
      ...(entity ? { Entity: entity } : {}),
    },
  });
  return { Line: [line('Debit', debit), line('Credit', credit)] };
}

beforeAll(async () => {
  await double.start();
});

afterAll(async () => {
  await double.stop();
});

beforeEach(() => {
  ticking = true;
  clock += 120_000;
  double.calm();
  double.violations.length = 0;
});

describe('QuickBooks Online rules (the double, as Intuit documents them)', () => {
  it('filterable: filters only on properties Intuit marks filterable (4001 "is not queryable")', async () => {
    const c = await company();
    expect(fault(await query(c, "select * from Account where AcctNum = '1010'"))).toEqual({
      status: 400,
      code: '4001',
      Message: 'Invalid query',
      Detail: "QueryValidationError: property 'AcctNum' is not queryable",
    });
    for (const refused of [
      "select * from Invoice where PrivateNote LIKE 'booksync key=%'",
      "select * from Vendor where PrimaryEmailAddr = 'a@b.test'",
      "select * from Payment where DocNumber = 'bs123'",
      "select * from Deposit where DocNumber = 'bs123'",
      "select * from Invoice where DocNumber LIKE 'INV%'",
    ])
      expect([refused, fault(await query(c, refused)).code]).toEqual([refused, '4001']);
    await invoiced(c, 'Filterable Customer');
    for (const allowed of [
      "select * from Customer where DisplayName LIKE 'Filterable%'",
      "select * from Invoice where DocNumber IN ('INV-1', 'INV-2') and TxnDate = '2026-11-04'",
      'select * from Account orderby Id startposition 1 maxresults 1000',
      "select * from Payment where TxnDate = '2026-11-04' maxresults 1000",
      "select * from Customer where PrimaryEmailAddr = 'a@b.test'",
    ])
      expect([allowed, (await query(c, allowed)).status]).toEqual([allowed, 200]);
    const rows = await query(c, "select * from Customer where DisplayName LIKE 'filterable%'");
    expect((rows.body.QueryResponse as { Customer: unknown[] }).Customer).toHaveLength(1);
  });

  it('void-operation: a Payment and a BillPayment void by operation=update&include=void, an Invoice by operation=void', async () => {
    const c = await company();
    const { payment } = await paid(c, 50);
    const wrong = await c.call(
      'POST',
      'payment',
      { operation: 'void' },
      { Id: payment.Id, SyncToken: payment.SyncToken },
    );
    expect(fault(wrong)).toMatchObject({ status: 400, Message: 'Unsupported Operation' });
    const voided = entityOf(
      await c.call(
        'POST',
        'payment',
        { operation: 'update', include: 'void' },
        { Id: payment.Id, SyncToken: payment.SyncToken, sparse: true },
      ),
      'Payment',
    );
    expect(voided.TotalAmt).toBe(0);
    const { vendor, bill } = await vendorBill(c);
    const billPayment = entityOf(
      await c.call(
        'POST',
        'billpayment',
        {},
        billPaymentBody(vendor.Id, bill.Id, c.account(defaultAccountCodes.OutgoingPaymentsClearing)),
      ),
      'BillPayment',
    );
    const wrongBp = await c.call(
      'POST',
      'billpayment',
      { operation: 'void' },
      { Id: billPayment.Id, SyncToken: billPayment.SyncToken },
    );
    expect(fault(wrongBp)).toMatchObject({ status: 400, Message: 'Unsupported Operation' });
    const { invoice } = await invoiced(c);
    const wrongInvoice = await c.call(
      'POST',
      'invoice',
      { operation: 'update', include: 'void' },
      { Id: invoice.Id, SyncToken: invoice.SyncToken, sparse: true },
    );
    expect(fault(wrongInvoice)).toMatchObject({ status: 400, Message: 'Unsupported Operation' });
    const voidedInvoice = entityOf(
      await c.call(
        'POST',
        'invoice',
        { operation: 'void' },
        { Id: invoice.Id, SyncToken: invoice.SyncToken },
      ),
      'Invoice',
    );
    expect([voidedInvoice.TotalAmt, voidedInvoice.Balance]).toEqual([0, 0]);
    // In a batch: operation update with optionsData void.
    const other = await paid(c, 20);
    const batch = await c.call(
      'POST',
      'batch',
      {},
      {
        BatchItemRequest: [
          {
            bId: '1',
            operation: 'update',
            optionsData: 'void',
            Payment: { Id: other.payment.Id, SyncToken: other.payment.SyncToken, sparse: true },
          },
        ],
      },
    );
    const [item] = batch.body.BatchItemResponse as { Payment?: { TotalAmt: number } }[];
    expect(item?.Payment?.TotalAmt).toBe(0);
  });

  it('void-note: a void prefixes "Voided" to PrivateNote, zeroes the lines, and keeps no note or line from the body', async () => {
    const c = await company();
    const { payment, invoice } = await paid(c, 50);
    const voided = entityOf(
      await c.call(
        'POST',
        'payment',
        { operation: 'update', include: 'void' },
        {
          Id: payment.Id,
          SyncToken: payment.SyncToken,
          sparse: true,
          PrivateNote: 'booksync key=reversal:x hash=r',
        },
      ),
      'Payment',
    );
    expect(voided.PrivateNote).toBe('Voided booksync key=payment:x hash=h');
    expect((voided.Line as { Amount: number }[]).map((l) => l.Amount)).toEqual([0]);
    expect(double.get(c.realmId, 'Invoice', invoice.Id)?.Balance).toBe(120);
    const { invoice: other } = await invoiced(c);
    const voidedInvoice = entityOf(
      await c.call(
        'POST',
        'invoice',
        { operation: 'void' },
        { Id: other.Id, SyncToken: other.SyncToken, PrivateNote: 'mine' },
      ),
      'Invoice',
    );
    expect(voidedInvoice.PrivateNote).toBe('Voided booksync key=invoice:x hash=h');
  });

  it('voided-update: a voided transaction is not changed, not even its note by a sparse update', async () => {
    const c = await company();
    const { payment } = await paid(c, 50);
    // Live, its note may change.
    const noted = entityOf(
      await c.call(
        'POST',
        'payment',
        { operation: 'update' },
        { Id: payment.Id, SyncToken: payment.SyncToken, sparse: true, PrivateNote: 'before the void' },
      ),
      'Payment',
    );
    const voided = entityOf(
      await c.call(
        'POST',
        'payment',
        { operation: 'update', include: 'void' },
        { Id: noted.Id, SyncToken: noted.SyncToken, sparse: true },
      ),
      'Payment',
    );
    expect(voided.PrivateNote).toBe('Voided before the void');
    const after = await c.call(
      'POST',
      'payment',
      { operation: 'update' },
      { Id: voided.Id, SyncToken: voided.SyncToken, sparse: true, PrivateNote: 'after the void' },
    );
    expect(fault(after)).toMatchObject({
      status: 400,
      code: '6000',
      Detail: expect.stringMatching(/is voided/),
    });
    expect(double.get(c.realmId, 'Payment', payment.Id)?.PrivateNote).toBe('Voided before the void');
  });

  it('deposited-void: a payment on a deposit cannot be voided (6540)', async () => {
    const c = await company();
    const { payment } = await paid(c);
    entityOf(
      await c.call(
        'POST',
        'deposit',
        {},
        depositBody(c.account(defaultAccountCodes.OperatingBank), [payment.Id]),
      ),
      'Deposit',
    );
    const refused = await c.call(
      'POST',
      'payment',
      { operation: 'update', include: 'void' },
      { Id: payment.Id, SyncToken: payment.SyncToken, sparse: true },
    );
    expect(fault(refused)).toMatchObject({
      status: 400,
      code: '6540',
      Message: 'Deposited Transaction cannot be changed',
    });
  });

  it('within-balance: a payment applies no more than the invoice’s (bill’s) open Balance', async () => {
    const c = await company();
    const { customer, invoice } = await invoiced(c);
    entityOf(await c.call('POST', 'payment', {}, paymentBody(c, customer.Id, invoice.Id, 100)), 'Payment');
    const over = await c.call('POST', 'payment', {}, paymentBody(c, customer.Id, invoice.Id, 30));
    expect(fault(over)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(over).Detail).toMatch(/more than its open balance of 20/);
    expect(double.get(c.realmId, 'Invoice', invoice.Id)?.Balance).toBe(20);
    const { vendor, bill } = await vendorBill(c);
    const bank = c.account(defaultAccountCodes.OutgoingPaymentsClearing);
    entityOf(
      await c.call('POST', 'billpayment', {}, billPaymentBody(vendor.Id, bill.Id, bank)),
      'BillPayment',
    );
    expect(
      fault(await c.call('POST', 'billpayment', {}, billPaymentBody(vendor.Id, bill.Id, bank))).code,
    ).toBe('6000');
  });

  it('voided-invoice: no payment is applied to a voided invoice', async () => {
    const c = await company();
    const { customer, invoice } = await invoiced(c);
    entityOf(
      await c.call(
        'POST',
        'invoice',
        { operation: 'void' },
        { Id: invoice.Id, SyncToken: invoice.SyncToken },
      ),
      'Invoice',
    );
    const refused = await c.call('POST', 'payment', {}, paymentBody(c, customer.Id, invoice.Id, 0));
    expect(fault(refused)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(refused).Detail).toMatch(/is voided/);
  });

  it('credit memo applied: a zero Payment linking an Invoice and a CreditMemo lowers both Balances', async () => {
    const c = await company();
    const { customer, item, invoice } = await invoiced(c);
    const memo = entityOf(
      await c.call('POST', 'creditmemo', {}, creditMemoBody(customer.Id, item.Id, 30)),
      'CreditMemo',
    );
    expect(memo).toMatchObject({ TotalAmt: 30, Balance: 30, RemainingCredit: 30 });
    // Dr the item's income account / Cr A/R.
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(90_00);
    const rows = await query(c, `select * from CreditMemo where DocNumber = '${memo.DocNumber}'`);
    expect((rows.body.QueryResponse as { CreditMemo: unknown[] }).CreditMemo).toHaveLength(1);
    const applied = entityOf(
      await c.call('POST', 'payment', {}, applicationBody(customer.Id, invoice.Id, memo.Id, 30)),
      'Payment',
    );
    expect(applied.TotalAmt).toBe(0);
    expect(double.get(c.realmId, 'Invoice', invoice.Id)?.Balance).toBe(90);
    expect(double.get(c.realmId, 'CreditMemo', memo.Id)).toMatchObject({ Balance: 0, RemainingCredit: 0 });
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(90_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(0);
  });

  it('within-balance: a credit memo is applied for no more than the invoice’s open Balance', async () => {
    const c = await company();
    const { customer, item, invoice } = await invoiced(c);
    entityOf(await c.call('POST', 'payment', {}, paymentBody(c, customer.Id, invoice.Id, 100)), 'Payment');
    const memo = entityOf(
      await c.call('POST', 'creditmemo', {}, creditMemoBody(customer.Id, item.Id, 30)),
      'CreditMemo',
    );
    const over = await c.call('POST', 'payment', {}, applicationBody(customer.Id, invoice.Id, memo.Id, 30));
    expect(fault(over)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(over).Detail).toMatch(/more than its open balance of 20/);
    expect(double.get(c.realmId, 'Invoice', invoice.Id)?.Balance).toBe(20);
    expect(double.get(c.realmId, 'CreditMemo', memo.Id)?.Balance).toBe(30);
  });

  it('credit-within-balance: a payment applies no more of a credit memo than its Balance, and only its customer’s', async () => {
    const c = await company();
    const { customer, item, invoice } = await invoiced(c);
    const memo = entityOf(
      await c.call('POST', 'creditmemo', {}, creditMemoBody(customer.Id, item.Id, 30)),
      'CreditMemo',
    );
    entityOf(
      await c.call('POST', 'payment', {}, applicationBody(customer.Id, invoice.Id, memo.Id, 20)),
      'Payment',
    );
    expect(double.get(c.realmId, 'CreditMemo', memo.Id)?.Balance).toBe(10);
    const over = await c.call('POST', 'payment', {}, applicationBody(customer.Id, invoice.Id, memo.Id, 15));
    expect(fault(over)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(over).Detail).toMatch(/more than its remaining credit of 10/);
    expect(double.get(c.realmId, 'Invoice', invoice.Id)?.Balance).toBe(100);
    const other = await invoiced(c);
    const foreign = await c.call(
      'POST',
      'payment',
      {},
      applicationBody(other.customer.Id, other.invoice.Id, memo.Id, 5),
    );
    expect(fault(foreign)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(foreign).Detail).toMatch(/another customer/);
  });

  it('voided-invoice: no credit memo is applied to a voided invoice', async () => {
    const c = await company();
    const { customer, item, invoice } = await invoiced(c);
    const memo = entityOf(
      await c.call('POST', 'creditmemo', {}, creditMemoBody(customer.Id, item.Id, 30)),
      'CreditMemo',
    );
    entityOf(
      await c.call(
        'POST',
        'invoice',
        { operation: 'void' },
        { Id: invoice.Id, SyncToken: invoice.SyncToken },
      ),
      'Invoice',
    );
    const refused = await c.call('POST', 'payment', {}, applicationBody(customer.Id, invoice.Id, memo.Id, 0));
    expect(fault(refused)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(refused).Detail).toMatch(/is voided/);
    expect(double.get(c.realmId, 'CreditMemo', memo.Id)?.Balance).toBe(30);
  });

  it('journal-parties: a journal line on A/R names a customer, on A/P a vendor', async () => {
    const c = await company();
    const ar = await c.call(
      'POST',
      'journalentry',
      {},
      journalBody(c, defaultAccountCodes.AccountsReceivable, defaultAccountCodes.Revenue),
    );
    expect(fault(ar)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(ar).Detail).toMatch(/Accounts Receivable, you must choose a customer/);
    const ap = await c.call(
      'POST',
      'journalentry',
      {},
      journalBody(c, defaultAccountCodes.BillExpenses, defaultAccountCodes.AccountsPayable),
    );
    expect(fault(ap).Detail).toMatch(/Accounts Payable, you must select a vendor/);
    const { customer } = await invoiced(c);
    const named = await c.call(
      'POST',
      'journalentry',
      {},
      journalBody(c, defaultAccountCodes.AccountsReceivable, defaultAccountCodes.Revenue, {
        Type: 'Customer',
        EntityRef: { value: customer.Id },
      }),
    );
    expect(named.status).toBe(200);
  });

  it('display-name: DisplayName is unique across customers, vendors and employees (6240)', async () => {
    const c = await company();
    entityOf(await c.call('POST', 'vendor', {}, { DisplayName: 'Acme Supplies' }), 'Vendor');
    const customer = await c.call('POST', 'customer', {}, { DisplayName: 'acme supplies' });
    expect(fault(customer)).toEqual({
      status: 400,
      code: '6240',
      Message: 'Duplicate Name Exists Error',
      Detail:
        'The name supplied already exists. : Another customer, vendor or employee is already using this name. Please use a different name.',
    });
    double.seed(c.realmId, 'Employee', { DisplayName: 'Pat Employee' });
    expect(fault(await c.call('POST', 'vendor', {}, { DisplayName: 'Pat Employee' })).code).toBe('6240');
  });

  it('billpayment-account: a bill payment by check pays from a Bank account', async () => {
    const c = await company();
    const { vendor, bill } = await vendorBill(c);
    const refused = await c.call(
      'POST',
      'billpayment',
      {},
      billPaymentBody(vendor.Id, bill.Id, c.account(defaultAccountCodes.ProcessingFees)),
    );
    expect(fault(refused)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(refused).Detail).toMatch(/must be paid from a Bank account/);
  });

  it('deposit-account: a deposit goes into a Bank or Other Current Asset account', async () => {
    const c = await company();
    const { payment } = await paid(c);
    const refused = await c.call(
      'POST',
      'deposit',
      {},
      depositBody(c.account(defaultAccountCodes.Revenue), [payment.Id]),
    );
    expect(fault(refused)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(refused).Detail).toMatch(/Bank or Other Current Asset/);
    const ok = await c.call(
      'POST',
      'deposit',
      {},
      depositBody(c.account(defaultAccountCodes.PayoutsInTransit), [payment.Id]),
    );
    expect(ok.status).toBe(200);
  });

  it('payment-account: a payment is deposited to a Bank or Other Current Asset account, never to a liability', async () => {
    const c = await company();
    const { customer, invoice } = await invoiced(c);
    const body = (account: string) => ({
      ...paymentBody(c, customer.Id, invoice.Id, 100),
      DepositToAccountRef: { value: c.account(account) },
    });
    const refused = await c.call('POST', 'payment', {}, body(defaultAccountCodes.UnappliedCash));
    expect(fault(refused)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(refused).Detail).toMatch(/Bank or Other Current Asset/);
    const ok = await c.call('POST', 'payment', {}, body(defaultAccountCodes.ChecksToDeposit));
    expect(ok.status).toBe(200);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ChecksToDeposit)).toBe(100_00);
  });

  it('salesreceipt-account: a sales receipt is deposited to a Bank or Other Current Asset account; voided by update&include=void', async () => {
    const c = await company();
    const { item } = await invoiced(c);
    const receipt = (account: string) => ({
      DepositToAccountRef: { value: account },
      Line: [
        {
          Amount: 25,
          DetailType: 'SalesItemLineDetail',
          SalesItemLineDetail: { ItemRef: { value: item.Id }, Qty: 1, UnitPrice: 25 },
        },
      ],
    });
    const refused = await c.call('POST', 'salesreceipt', {}, receipt(c.account(defaultAccountCodes.Revenue)));
    expect(fault(refused)).toMatchObject({ status: 400, code: '6000' });
    expect(fault(refused).Detail).toMatch(/Bank or Other Current Asset/);
    // No customer needed; deposited to Undeposited Funds (Other Current Asset), income on the item's account.
    const made = entityOf(
      await c.call('POST', 'salesreceipt', {}, receipt(c.account(defaultAccountCodes.ProcessorClearing))),
      'SalesReceipt',
    );
    expect([made.TotalAmt, made.Balance]).toEqual([25, 0]);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(25_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.Revenue)).toBe(-(120_00 + 25_00));
    const wrong = await c.call(
      'POST',
      'salesreceipt',
      { operation: 'void' },
      { Id: made.Id, SyncToken: made.SyncToken },
    );
    expect(fault(wrong)).toMatchObject({ status: 400, Message: 'Unsupported Operation' });
    const voided = entityOf(
      await c.call(
        'POST',
        'salesreceipt',
        { operation: 'update', include: 'void' },
        { Id: made.Id, SyncToken: made.SyncToken, sparse: true },
      ),
      'SalesReceipt',
    );
    expect(voided.TotalAmt).toBe(0);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(0);
  });

  it('automated-sales-tax: a company on AST taxes a sales line sent without a non-taxable code; TaxCode serves TAX and NON', async () => {
    const c = await company({ automatedSalesTax: { ratePercent: 8.25 } });
    const codes = (await query(c, 'select * from TaxCode')).body.QueryResponse as { TaxCode: Entity[] };
    expect(codes.TaxCode.map((t) => [t.Id, t.Taxable])).toEqual(
      expect.arrayContaining([
        ['TAX', true],
        ['NON', false],
      ]),
    );
    const prefs = (await query(c, 'select * from Preferences')).body.QueryResponse as {
      Preferences: Entity[];
    };
    expect(prefs.Preferences[0]?.TaxPrefs).toEqual({ UsingSalesTax: true, PartnerTaxEnabled: true });
    // No code: AST marks the line TAX and adds 8.25 % of 120.00 = 9.90; the customer owes 129.90.
    const { invoice: taxed } = await invoiced(c);
    expect(taxed.TotalAmt).toBe(129.9);
    expect(taxed.Balance).toBe(129.9);
    expect(taxed.TxnTaxDetail).toMatchObject({ TotalTax: 9.9 });
    expect((taxed.Line as Entity[])[0]?.SalesItemLineDetail).toMatchObject({ TaxCodeRef: { value: 'TAX' } });
    expect(double.salesTaxOwed(c.realmId)).toBe(9_90);
    // NON: no tax, the invoice is its lines.
    const { invoice: exempt } = await invoiced(c, undefined, 'NON');
    expect(exempt.TotalAmt).toBe(120);
    expect(exempt.TxnTaxDetail).toBeUndefined();
    // A code the company does not have is an invalid reference (2500).
    const { item, customer } = await invoiced(c, undefined, 'NON');
    const unknown = await c.call(
      'POST',
      'invoice',
      {},
      {
        CustomerRef: { value: customer.Id },
        Line: [
          {
            Amount: 10,
            DetailType: 'SalesItemLineDetail',
            SalesItemLineDetail: { ItemRef: { value: item.Id }, TaxCodeRef: { value: 'EXEMPT' } },
          },
        ],
      },
    );
    expect(fault(unknown)).toMatchObject({ status: 400, code: '2500' });
    // A company without AST adds nothing to a line without a code.
    const plain = await company();
    expect((await invoiced(plain)).invoice.TotalAmt).toBe(120);
  });

  it('deposit-once: a deposit cannot link the same payment twice', async () => {
    const c = await company();
    const { payment } = await paid(c);
    const bank = c.account(defaultAccountCodes.OperatingBank);
    expect(fault(await c.call('POST', 'deposit', {}, depositBody(bank, [payment.Id, payment.Id]))).code).toBe(
      '6000',
    );
    entityOf(await c.call('POST', 'deposit', {}, depositBody(bank, [payment.Id])), 'Deposit');
    expect(fault(await c.call('POST', 'deposit', {}, depositBody(bank, [payment.Id]))).code).toBe('6000');
  });

  it('batch-isolation: the items of one batch do not see each other', async () => {
    const c = await company();
    const batch = await c.call(
      'POST',
      'batch',
      {},
      {
        BatchItemRequest: [
          { bId: '1', operation: 'create', Customer: { DisplayName: 'Batch Sibling' } },
          { bId: '2', Query: "select * from Customer where DisplayName = 'Batch Sibling'" },
        ],
      },
    );
    const [created, queried] = batch.body.BatchItemResponse as Record<string, unknown>[];
    expect(created?.Customer).toBeDefined();
    expect(queried?.QueryResponse).toEqual({});
  });

  it('string-length: DocNumber and PaymentRefNum of at most 21 characters, PrivateNote of 4000 (2050)', async () => {
    const c = await company();
    const { customer, invoice } = await invoiced(c);
    const long = await c.call(
      'POST',
      'payment',
      {},
      {
        ...paymentBody(c, customer.Id, invoice.Id, 10),
        PaymentRefNum: 'r'.repeat(22),
      },
    );
    expect(fault(long)).toEqual({
      status: 400,
      code: '2050',
      Message: 'String length is either shorter or longer than supported by specification',
      Detail:
        'String length specified does not match the supported length. Min:0 Max:21 supported. Supplied length:22',
    });
    const note = await c.call(
      'POST',
      'invoice',
      { operation: 'update' },
      {
        Id: invoice.Id,
        SyncToken: invoice.SyncToken,
        sparse: true,
        PrivateNote: 'n'.repeat(4001),
      },
    );
    expect(fault(note).code).toBe('2050');
    const ok = await c.call(
      'POST',
      'payment',
      {},
      { ...paymentBody(c, customer.Id, invoice.Id, 10), PaymentRefNum: 'r'.repeat(21) },
    );
    expect(ok.status).toBe(200);
  });

  it('duplicate-docnumber, stale-synctoken, requestid-replay, invoice-void-applied: what the adapter’s idempotency rests on', async () => {
    const c = await company();
    const { customer, item, invoice } = await invoiced(c);
    const again = await c.call(
      'POST',
      'invoice',
      {},
      {
        DocNumber: invoice.DocNumber,
        CustomerRef: { value: customer.Id },
        Line: [
          {
            Amount: 1,
            DetailType: 'SalesItemLineDetail',
            SalesItemLineDetail: { ItemRef: { value: item.Id } },
          },
        ],
      },
    );
    expect(fault(again)).toMatchObject({ status: 400, code: '6140' });
    const stale = await c.call(
      'POST',
      'invoice',
      { operation: 'update' },
      { Id: invoice.Id, SyncToken: '7', sparse: true, PrivateNote: 'x' },
    );
    expect(fault(stale)).toMatchObject({ code: '5010', Message: 'Stale Object Error' });
    const body = { DisplayName: `Replayed ${n++}` };
    const first = entityOf(await c.call('POST', 'customer', { requestid: 'same-request' }, body), 'Customer');
    const second = entityOf(
      await c.call('POST', 'customer', { requestid: 'same-request' }, body),
      'Customer',
    );
    expect(second.Id).toBe(first.Id);
    entityOf(await c.call('POST', 'payment', {}, paymentBody(c, customer.Id, invoice.Id, 10)), 'Payment');
    const current = double.get(c.realmId, 'Invoice', invoice.Id);
    const refused = await c.call(
      'POST',
      'invoice',
      { operation: 'void' },
      { Id: invoice.Id, SyncToken: current?.SyncToken },
    );
    expect(fault(refused).Detail).toMatch(/payments applied/);
  });

  it('requestid-replay: a requestid is answered with its first result for as long as it is retained; 0: not honoured', async () => {
    const c = await company();
    const customer = (requestid: string, DisplayName: string) =>
      c.call('POST', 'customer', { requestid }, { DisplayName });
    try {
      double.retainRequestIds(60_000);
      const first = entityOf(await customer('kept-a-minute', `Kept ${n++}`), 'Customer');
      const replayed = entityOf(await customer('kept-a-minute', `Kept ${n++}`), 'Customer');
      expect(replayed.Id).toBe(first.Id);
      // A minute later the requestid is forgotten: the same requestid is a new create.
      clock += 60_000;
      const later = entityOf(await customer('kept-a-minute', `Kept ${n++}`), 'Customer');
      expect(later.Id).not.toBe(first.Id);
      // Not honoured at all (QBO made two payments for one requestid: intuit/QuickBooks-V3-DotNET-SDK#352).
      double.retainRequestIds(0);
      const once = entityOf(await customer('not honoured', `Twice ${n++}`), 'Customer');
      const twice = entityOf(await customer('not honoured', `Twice ${n++}`), 'Customer');
      expect(twice.Id).not.toBe(once.Id);
    } finally {
      double.retainRequestIds(Number.POSITIVE_INFINITY);
    }
  });

  it('books-closed: a company answering a write into closed books with 5010 "Account Period Closed"', async () => {
    const c = await company({ closedBooksCode: '5010' });
    const { customer, invoice } = await invoiced(c);
    double.closeBooks(c.realmId, '2026-01-31');
    const refused = await c.call(
      'POST',
      'payment',
      {},
      {
        ...paymentBody(c, customer.Id, invoice.Id, 10),
        TxnDate: '2026-01-15',
      },
    );
    // As QBO answered a Bill and an Invoice create (routablehq/python-quickbooks#208).
    expect(fault(refused)).toEqual({
      status: 400,
      code: '5010',
      Message: 'Account Period Closed',
      Detail: 'The account period has closed. {1}',
    });
  });

  it('books-closed: nothing dated on or before the books closing date is created, voided or changed (6200)', async () => {
    const c = await company();
    const { customer, invoice } = await invoiced(c);
    const dated = (amount: number, TxnDate: string) => ({
      ...paymentBody(c, customer.Id, invoice.Id, amount),
      TxnDate,
    });
    const january = entityOf(await c.call('POST', 'payment', {}, dated(50, '2026-01-15')), 'Payment');
    // Read and set as the API allows: the company's Preferences, AccountingInfoPrefs.BookCloseDate.
    const read = await query(c, 'select * from Preferences');
    const [prefs] = (read.body.QueryResponse as { Preferences: { Id: string; SyncToken: string }[] })
      .Preferences;
    expect(prefs).toBeDefined();
    const closed = entityOf(
      await c.call(
        'POST',
        'preferences',
        { operation: 'update' },
        {
          Id: prefs?.Id,
          SyncToken: prefs?.SyncToken,
          sparse: true,
          AccountingInfoPrefs: { BookCloseDate: '2026-01-31' },
        },
      ),
      'Preferences',
    );
    expect((closed.AccountingInfoPrefs as { BookCloseDate: string }).BookCloseDate).toBe('2026-01-31');
    expect(double.bookCloseDate(c.realmId)).toBe('2026-01-31');
    const refusal = {
      status: 400,
      code: '6200',
      Message: 'Account Period Closed, Cannot Update Through Services API',
      Detail: expect.stringContaining('The account period has closed'),
    };
    // A create dated on the closing date.
    expect(fault(await c.call('POST', 'payment', {}, dated(10, '2026-01-31')))).toEqual(refusal);
    // A void and an edit of a transaction dated before it.
    const voiding = await c.call(
      'POST',
      'payment',
      { operation: 'update', include: 'void' },
      { Id: january.Id, SyncToken: january.SyncToken, sparse: true },
    );
    expect(fault(voiding)).toEqual(refusal);
    const editing = await c.call(
      'POST',
      'payment',
      { operation: 'update' },
      { Id: january.Id, SyncToken: january.SyncToken, sparse: true, PrivateNote: 'edited' },
    );
    expect(fault(editing)).toEqual(refusal);
    // The day after is open; moving a transaction into the closed period is refused.
    const february = entityOf(await c.call('POST', 'payment', {}, dated(10, '2026-02-01')), 'Payment');
    const moving = await c.call(
      'POST',
      'payment',
      { operation: 'update' },
      { Id: february.Id, SyncToken: february.SyncToken, sparse: true, TxnDate: '2026-01-20' },
    );
    expect(fault(moving)).toEqual(refusal);
    // In a batch, the item is refused with the same Fault.
    const batch = await c.call(
      'POST',
      'batch',
      {},
      { BatchItemRequest: [{ bId: '1', operation: 'create', Payment: dated(5, '2026-01-02') }] },
    );
    const [item] = batch.body.BatchItemResponse as { Fault?: { Error: { code: string }[] } }[];
    expect(item?.Fault?.Error[0]?.code).toBe('6200');
    expect(double.get(c.realmId, 'Payment', january.Id)).toMatchObject({ TotalAmt: 50 });
    // Books open again: the January payment may be voided.
    double.closeBooks(c.realmId, null);
    const current = double.get(c.realmId, 'Payment', january.Id);
    const voided = await c.call(
      'POST',
      'payment',
      { operation: 'update', include: 'void' },
      { Id: january.Id, SyncToken: current?.SyncToken, sparse: true },
    );
    expect(entityOf(voided, 'Payment').TotalAmt).toBe(0);
  });
});

describe('QuickBooks Online limits per company and app (429 ThrottleExceeded)', () => {
  const throttled = {
    status: 429,
    code: '3001',
    Message: 'message=ThrottleExceeded; errorCode=003001; statusCode=429',
    Detail: 'The request limit was reached.',
  };

  it('per-second: 10 requests a second', async () => {
    const c = await company();
    ticking = false;
    for (let i = 0; i < 10; i++) expect((await query(c, 'select * from Item')).status).toBe(200);
    expect(fault(await query(c, 'select * from Item'))).toEqual(throttled);
    clock += 1_001;
    expect((await query(c, 'select * from Item')).status).toBe(200);
    expect(double.refusedForLimit(c.realmId)).toEqual({ perSecond: 1 });
  });

  it('per-minute: 500 requests a minute', async () => {
    const c = await company();
    ticking = false;
    for (let i = 0; i < 500; i++) {
      if (i % 10 === 0) clock += 1_001;
      expect((await query(c, 'select * from Item')).status).toBe(200);
    }
    clock += 1_001;
    expect(fault(await query(c, 'select * from Item'))).toEqual(throttled);
    expect(double.refusedForLimit(c.realmId)).toEqual({ perMinute: 1 });
  }, 60_000);

  it('batches-per-minute: 40 batch requests a minute', async () => {
    const c = await company();
    ticking = false;
    const batch = { BatchItemRequest: [{ bId: '1', Query: 'select * from Item' }] };
    for (let i = 0; i < 40; i++) {
      if (i % 10 === 0) clock += 1_001;
      expect((await c.call('POST', 'batch', {}, batch)).status).toBe(200);
    }
    clock += 1_001;
    expect(fault(await c.call('POST', 'batch', {}, batch))).toEqual(throttled);
    expect((await query(c, 'select * from Item')).status).toBe(200);
    expect(double.refusedForLimit(c.realmId)).toEqual({ batchesPerMinute: 1 });
  });
});

describe('QuickBooks Online concurrency (10 at once)', () => {
  const slow = new QuickBooksDouble({ latencyMs: 300, now: () => clock });

  beforeAll(async () => {
    await slow.start();
  });

  afterAll(async () => {
    await slow.stop();
  });

  it('concurrent: an 11th request while 10 are in flight is refused', async () => {
    const realmId = slow.createRealm();
    const tokens = new OAuthTokenStore({
      tokenUrl: `${slow.url}/oauth2/v1/tokens/bearer`,
      clientId: slow.clientId,
      clientSecret: slow.clientSecret,
      storage: new SealedTokenInMemory(cipher.seal(slow.connect(realmId))),
      cipher,
    });
    const token = await tokens.accessToken();
    const get = () =>
      fetch(
        `${slow.url}/v3/company/${realmId}/query?minorversion=75&query=${encodeURIComponent('select * from Item')}`,
        {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        },
      ).then((r) => r.status);
    // Ten at once, then an eleventh once they are in (the clock does not move: the second is not the limit).
    const first = Array.from({ length: 10 }, () => get());
    await new Promise((r) => setTimeout(r, 100));
    clock += 1_001;
    const eleventh = await get();
    expect(await Promise.all(first)).toEqual(Array(10).fill(200));
    expect(eleventh).toBe(429);
    expect(slow.refusedForLimit(realmId)).toEqual({ concurrent: 1 });
  });
});
