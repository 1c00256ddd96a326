import { quickBooksContract } from '@booksync/vendor-doubles/quickbooks/xsd-contract';
import { describe, expect, it } from 'vitest';
import { type AccountMapping, type AccountRole, accountRoles } from '../../src/targets/account-mapping.js';
import { roleAccountTypes } from '../../src/targets/quickbooks/account-types.js';
import { QboClient, type QboEntity } from '../../src/targets/quickbooks/http-client.js';
import {
  OAuthTokenStore,
  QuickBooksLimiter,
  QuickBooksTarget,
  quickBooksBudget,
} from '../../src/targets/quickbooks/index.js';
import { requestIdFor } from '../../src/targets/quickbooks/keys.js';
import {
  pushContractDocumentsTwice,
  reportSkipped,
  sandboxRefreshToken,
  sandboxSettings,
} from './target-sandbox.js';

// Opt-in: the adapter against a real QuickBooks Online sandbox company (developer.intuit.com), when
//   QBO_CLIENT_ID, QBO_CLIENT_SECRET, QBO_REFRESH_TOKEN, QBO_REALM_ID
// are set (QBO_BASE_URL defaults to the sandbox API). It checks what the double cannot prove: that QBO
// itself accepts booksync's documents, answers in the XSD's shape, replays requestids, and finds keys with
// the queries the adapter uses (DocNumber tags and numbers, dates, the marker read back), and that QBO holds
// the rules the double holds (packages/vendor-doubles/src/quickbooks/README.md), each with the double's code: filterable
// properties only, voids by include=void / operation=void with "Voided" prefixed, 6540, no payment beyond
// a Balance or on a voided invoice, A/R and A/P journal names, 6240 across customers and vendors, a
// BillPayment from a Bank account, a Deposit into a Bank or Other Current Asset account and a payment
// deposited once, a credit memo applied by a zero Payment within its Balance and the invoice's, batch items
// not seeing each other (the request limits are not provoked). It writes to the
// sandbox: booksync's accounts (`booksync <Role>`, mapped by Id, and `booksync rules Expense`), customers,
// a vendor, items, invoices, payments, a credit memo, a bill and a bill payment, a deposit, voids; nothing is
// deleted.
// QBO rotates the refresh token: the new one is written to the file QBO_REFRESH_TOKEN_OUT names, never logged.

const env = process.env;
const settings = sandboxSettings(
  ['QBO_CLIENT_ID', 'QBO_CLIENT_SECRET', 'QBO_REFRESH_TOKEN', 'QBO_REALM_ID'],
  'QuickBooks sandbox test',
);
const { missing, reason } = settings;

/** The type `booksync <Role>` is created with: the first its role accepts (verify() holds it to them). */
const accountTypes = (role: AccountRole) => {
  const { types, subType, newSubType } = roleAccountTypes[role];
  const sub = subType ?? newSubType;
  return { AccountType: types[0], ...(sub ? { AccountSubType: sub } : {}) };
};

/** One connection for both tests: QBO rotates the refresh token at every refresh. */
function connection() {
  const { cipher, storage, keep } = sandboxRefreshToken(env.QBO_REFRESH_TOKEN ?? '');
  const tokenStore = new OAuthTokenStore({
    tokenUrl: 'https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer',
    clientId: env.QBO_CLIENT_ID ?? '',
    clientSecret: env.QBO_CLIENT_SECRET ?? '',
    storage,
    cipher,
  });
  const baseUrl = env.QBO_BASE_URL ?? 'https://sandbox-quickbooks.api.intuit.com';
  const realmId = env.QBO_REALM_ID ?? '';
  const limiter = new QuickBooksLimiter(quickBooksBudget);
  const client = new QboClient({ baseUrl, realmId, tokens: tokenStore, limiter });
  return { keep, tokenStore, baseUrl, realmId, limiter, client };
}

let shared: ReturnType<typeof connection> | null = null;
const sandbox = () => {
  shared ??= connection();
  return shared;
};

/** booksync's accounts in the sandbox's chart, mapped by Id (sandbox charts have no account numbers). */
async function sandboxAccounts(client: QboClient): Promise<Record<AccountRole, string>> {
  const mapping: Record<string, string> = {};
  for (const role of accountRoles) {
    const type = accountTypes(role);
    const name = role === 'ProcessorClearing' ? 'Undeposited Funds' : `booksync ${role}`;
    const [found] = await client.select('Account', { Name: name });
    const account =
      found ??
      (await client.write(
        'Account',
        { Name: name, ...type },
        { requestid: requestIdFor(`sandbox-account:${role}`, 'create') },
      ));
    mapping[role] = account.Id;
  }
  return mapping as Record<AccountRole, string>;
}

describe.skipIf(missing.length > 0)('QuickBooks Online sandbox (opt-in)', () => {
  if (missing.length > 0) console.info(reason);

  it('pushes an invoice, a payment and its void that QBO accepts, answers in the XSD shape, and finds by key', async () => {
    const { keep, tokenStore, baseUrl, realmId, limiter, client } = sandbox();
    const contract = quickBooksContract();
    const mapping = await sandboxAccounts(client);

    const target = new QuickBooksTarget({
      baseUrl,
      realmId,
      tokenStore,
      accounts: mapping as AccountMapping,
      matching: 'create',
      limiter,
    });
    await pushContractDocumentsTwice(
      target,
      (doc) => ({ key: doc.key, contentHash: doc.contentHash }),
      async (pushed, docs) => {
        const [entity, id] = (pushed.get(docs.invoice.key)?.remoteIds[0] ?? '').split(':');
        const invoice = await client.read(entity ?? 'Invoice', id ?? '');
        expect(contract.check({ Invoice: invoice }, 'IntuitResponse')).toEqual([]);
        expect(invoice.Balance).toBe(120);
      },
    );
    // Never printed: the rotated token goes to the file QBO_REFRESH_TOKEN_OUT names (mode 0600), if any.
    await keep(
      env.QBO_REFRESH_TOKEN_OUT,
      'QBO sandbox: the refresh token rotated; set QBO_REFRESH_TOKEN_OUT to keep the new one',
    );
  }, 180_000);

  it('holds the rules the double holds, with the double’s codes (packages/vendor-doubles/src/quickbooks/README.md)', async () => {
    const { keep, client } = sandbox();
    const accounts = await sandboxAccounts(client);
    const run = Date.now().toString(36);
    let n = 0;
    const create = (entity: string, body: Record<string, unknown>) =>
      client.write(entity, body, { requestid: requestIdFor(`sandbox-rules:${run}:${n++}`, 'create') });
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => 'accepted',
        (e: Error) => e.message,
      );
    const ref = (value: string) => ({ value });

    // filterable: AcctNum, Invoice.PrivateNote, Vendor.PrimaryEmailAddr, Payment and Deposit DocNumber.
    for (const [entity, field] of [
      ['Account', 'AcctNum'],
      ['Invoice', 'PrivateNote'],
      ['Vendor', 'PrimaryEmailAddr'],
      ['Payment', 'DocNumber'],
      ['Deposit', 'DocNumber'],
    ] as const)
      expect([entity, field, await refusal(client.select(entity, { [field]: 'x' }))]).toEqual([
        entity,
        field,
        expect.stringMatching(/not queryable.*code 4001/),
      ]);

    const customer = await create('Customer', { DisplayName: `booksync rules customer ${run}` });
    const item = await create('Item', {
      Name: `booksync rules item ${run}`,
      Type: 'Service',
      IncomeAccountRef: ref(accounts.Revenue),
    });
    const invoice = async () =>
      create('Invoice', {
        CustomerRef: ref(customer.Id),
        PrivateNote: `booksync rules ${run}`,
        Line: [
          { Amount: 120, DetailType: 'SalesItemLineDetail', SalesItemLineDetail: { ItemRef: ref(item.Id) } },
        ],
      });
    const payment = (invoiceId: string, amount: number) =>
      create('Payment', {
        CustomerRef: ref(customer.Id),
        TotalAmt: amount,
        DepositToAccountRef: ref(accounts.ProcessorClearing),
        PrivateNote: `booksync rules ${run}`,
        Line: [{ Amount: amount, LinkedTxn: [{ TxnId: invoiceId, TxnType: 'Invoice' }] }],
      });
    const read = (entity: string, id: string) => client.read(entity, id);
    const voidBy = (entity: string, record: QboEntity, query: Record<string, string>) =>
      client.write(
        entity,
        { Id: record.Id, SyncToken: record.SyncToken, sparse: true },
        {
          ...query,
          requestid: requestIdFor(`sandbox-rules:${run}:${n++}`, 'void'),
        },
      );

    // within-balance; void-operation and void-note (Payment).
    const first = await invoice();
    const paid = await payment(first.Id, 100);
    expect(await refusal(payment(first.Id, 30))).toMatch(/code 6000/);
    expect(await refusal(voidBy('Payment', paid, { operation: 'void' }))).not.toBe('accepted');
    // The note a void finds is kept behind "Voided" (the adapter adds its reversal's marker so, before it).
    const noted = await client.write(
      'Payment',
      {
        Id: paid.Id,
        SyncToken: (await read('Payment', paid.Id)).SyncToken,
        sparse: true,
        PrivateNote: `booksync rules ${run}\nbooksync key=reversal:x hash=y`,
      },
      { operation: 'update', requestid: requestIdFor(`sandbox-rules:${run}:${n++}`, 'update') },
    );
    const voided = await voidBy('Payment', noted, { operation: 'update', include: 'void' });
    expect([voided.TotalAmt, String(voided.PrivateNote)]).toEqual([
      0,
      expect.stringMatching(/^Voided[\s\S]*reversal:x/),
    ]);
    // voided-update: the double refuses any change of a voided transaction (the conservative reading; the
    // adapter writes nothing to one either way). A QBO that accepts it fails here: the rule is then stricter
    // than QBO, which the adapter does not mind.
    const afterVoid = client.write(
      'Payment',
      { Id: voided.Id, SyncToken: voided.SyncToken, sparse: true, PrivateNote: `${voided.PrivateNote} x` },
      { operation: 'update', requestid: requestIdFor(`sandbox-rules:${run}:${n++}`, 'update') },
    );
    expect(await refusal(afterVoid)).toMatch(/code \d+/);

    // void-operation and void-note (Invoice); voided-invoice.
    const second = await invoice();
    const voidedInvoice = await client.write(
      'Invoice',
      { Id: second.Id, SyncToken: second.SyncToken },
      {
        operation: 'void',
        requestid: requestIdFor(`sandbox-rules:${run}:${n++}`, 'void'),
      },
    );
    expect(String(voidedInvoice.PrivateNote)).toMatch(/^Voided/);
    expect(await refusal(payment(second.Id, 10))).toMatch(/code 6000/);

    // A credit memo applied by a zero Payment linking it and an invoice; credit-within-balance, within-balance
    // and voided-invoice for an application.
    const creditMemo = (amount: number) =>
      create('CreditMemo', {
        CustomerRef: ref(customer.Id),
        PrivateNote: `booksync rules ${run}`,
        Line: [
          {
            Amount: amount,
            DetailType: 'SalesItemLineDetail',
            SalesItemLineDetail: { ItemRef: ref(item.Id) },
          },
        ],
      });
    const application = (invoiceId: string, memoId: string, amount: number) =>
      create('Payment', {
        CustomerRef: ref(customer.Id),
        TotalAmt: 0,
        PrivateNote: `booksync rules ${run}`,
        Line: [
          { Amount: amount, LinkedTxn: [{ TxnId: invoiceId, TxnType: 'Invoice' }] },
          { Amount: amount, LinkedTxn: [{ TxnId: memoId, TxnType: 'CreditMemo' }] },
        ],
      });
    const credited = await invoice();
    const memo = await creditMemo(30);
    expect([memo.TotalAmt, memo.Balance]).toEqual([30, 30]);
    await application(credited.Id, memo.Id, 20);
    expect((await read('Invoice', credited.Id)).Balance).toBe(100);
    expect((await read('CreditMemo', memo.Id)).Balance).toBe(10);
    expect(await refusal(application(credited.Id, memo.Id, 15))).toMatch(/code 6000/);
    await payment(credited.Id, 95);
    expect(await refusal(application(credited.Id, memo.Id, 10))).toMatch(/code 6000/);
    expect(await refusal(application(second.Id, memo.Id, 5))).toMatch(/code 6000/);

    // deposited-void (6540), deposit-once, deposit-account.
    const third = await invoice();
    const deposited = await payment(third.Id, 120);
    const depositOf = (into: string) => ({
      DepositToAccountRef: ref(into),
      Line: [{ Amount: 120, LinkedTxn: [{ TxnId: deposited.Id, TxnType: 'Payment' }] }],
    });
    expect(await refusal(create('Deposit', depositOf(accounts.Revenue)))).toMatch(/code 6000/);
    await create('Deposit', depositOf(accounts.OperatingBank));
    expect(await refusal(create('Deposit', depositOf(accounts.OperatingBank)))).not.toBe('accepted');
    expect(
      await refusal(
        voidBy('Payment', await read('Payment', deposited.Id), { operation: 'update', include: 'void' }),
      ),
    ).toMatch(/code 6540/);

    // journal-parties.
    const journal = (debit: string, credit: string) =>
      create('JournalEntry', {
        Line: (
          [
            ['Debit', debit],
            ['Credit', credit],
          ] as const
        ).map(([posting, account]) => ({
          Amount: 10,
          DetailType: 'JournalEntryLineDetail',
          JournalEntryLineDetail: { PostingType: posting, AccountRef: ref(account) },
        })),
      });
    expect(await refusal(journal(accounts.AccountsReceivable, accounts.Revenue))).toMatch(/code 6000/);
    expect(await refusal(journal(accounts.BillExpenses, accounts.AccountsPayable))).toMatch(/code 6000/);

    // display-name (6240) across customers and vendors.
    expect(await refusal(create('Vendor', { DisplayName: `booksync rules customer ${run}` }))).toMatch(
      /code 6240/,
    );

    // billpayment-account; void-operation (BillPayment).
    const vendor = await create('Vendor', { DisplayName: `booksync rules vendor ${run}` });
    const bill = await create('Bill', {
      VendorRef: ref(vendor.Id),
      Line: [
        {
          Amount: 300,
          DetailType: 'AccountBasedExpenseLineDetail',
          AccountBasedExpenseLineDetail: { AccountRef: ref(accounts.BillExpenses) },
        },
      ],
    });
    const billPayment = (from: string) =>
      create('BillPayment', {
        VendorRef: ref(vendor.Id),
        PayType: 'Check',
        CheckPayment: { BankAccountRef: ref(from) },
        TotalAmt: 300,
        Line: [{ Amount: 300, LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }] }],
      });
    expect(await refusal(billPayment(accounts.BillExpenses))).toMatch(/code 6000/);
    const bp = await billPayment(accounts.OutgoingPaymentsClearing);
    expect(await refusal(voidBy('BillPayment', bp, { operation: 'void' }))).not.toBe('accepted');
    const voidedBp = await voidBy('BillPayment', await read('BillPayment', bp.Id), {
      operation: 'update',
      include: 'void',
    });
    expect(String(voidedBp.PrivateNote ?? 'Voided')).toMatch(/^Voided/);

    // batch-isolation: a query in a batch does not see its sibling's create.
    const name = `booksync rules sibling ${run}`;
    const [created, queried] = await client.batch(
      [
        { entity: 'Customer', body: { DisplayName: name } },
        { entity: 'Customer', query: `select * from Customer where DisplayName = '${name}'` },
      ],
      requestIdFor(`sandbox-rules:${run}:batch`, 'batch'),
    );
    expect(created).not.toBeInstanceOf(Error);
    expect(queried).toEqual([]);

    await keep(
      env.QBO_REFRESH_TOKEN_OUT,
      'QBO sandbox: the refresh token rotated; set QBO_REFRESH_TOKEN_OUT to keep the new one',
    );
  }, 300_000);
});

reportSkipped('QuickBooks Online sandbox (opt-in)', settings);
