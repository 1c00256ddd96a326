import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { OAuthTokenStore, TokenCipher } from '../../../src/targets/quickbooks/index.js';
import { quickBooksBooksyncChart } from '../../support/booksync-charts.js';
import { SealedTokenInMemory } from '../../support/sealed-token-in-memory.js';

// QuickBooks Online's rules for a Deposit's linked lines, against the double directly
// (packages/vendor-doubles/src/quickbooks/README.md, the `deposit-*` rows; Intuit's Deposit reference, Line and TotalAmt).
// Each test fails with its rule off (QBO_DOUBLE_RULES_OFF=<rule>): the README's mutation check.

let clock = Date.now();
/** The double's clock moves 150 ms a request, so its per-second limit stays out of the way. */
const double = new QuickBooksDouble({ now: () => clock });
const cipher = new TokenCipher('test-secret-for-quickbooks-deposit-rules');

beforeAll(async () => {
  await double.start();
});
afterAll(async () => {
  await double.stop();
});

type Entity = Record<string, unknown> & { Id: string };
interface Answer {
  status: number;
  body: Record<string, unknown>;
}

let n = 0;
/** A company with booksync's accounts, and a caller of its API as an app connected to it. */
async function company() {
  const realmId = double.createRealm(undefined, { chart: quickBooksBooksyncChart });
  const tokens = new OAuthTokenStore({
    tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    storage: new SealedTokenInMemory(cipher.seal(double.connect(realmId))),
    cipher,
  });
  const token = await tokens.accessToken();
  const post = async (path: string, body: unknown): Promise<Answer> => {
    clock += 150;
    const url = new URL(`/v3/company/${realmId}/${path}`, double.url);
    url.searchParams.set('minorversion', '75');
    url.searchParams.set('requestid', `deposit-rules-${n++}`);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const account = (code: string) => ({
    value: String(double.all(realmId, 'Account').find((a) => a.AcctNum === code)?.Id),
  });
  const create = async (entity: string, body: unknown): Promise<Entity> => {
    const answer = await post(entity.toLowerCase(), body);
    if (answer.status !== 200) throw new Error(`${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body[entity] as Entity;
  };
  return { realmId, post, account, create };
}

type Company = Awaited<ReturnType<typeof company>>;

/**
 * What a business day leaves in Undeposited Funds: a 120.00 payment of an invoice, a 25.00 sales receipt, a
 * 5.00 refund receipt out of it, and a 1.75 fee journal (Dr Processing Fees / Cr Undeposited Funds); beside
 * them a 40.00 payment deposited to Checks To Deposit, not in Undeposited Funds.
 */
async function day(c: Company) {
  const undeposited = c.account(defaultAccountCodes.ProcessorClearing);
  const customer = await c.create('Customer', { DisplayName: `Customer ${n++}` });
  const item = await c.create('Item', {
    Name: `Item ${n++}`,
    Type: 'Service',
    IncomeAccountRef: c.account(defaultAccountCodes.Revenue),
  });
  const line = (amount: number) => ({
    Amount: amount,
    DetailType: 'SalesItemLineDetail',
    SalesItemLineDetail: { ItemRef: { value: item.Id } },
  });
  const invoice = await c.create('Invoice', { CustomerRef: { value: customer.Id }, Line: [line(160)] });
  const pay = (amount: number, into: { value: string }) =>
    c.create('Payment', {
      CustomerRef: { value: customer.Id },
      TotalAmt: amount,
      DepositToAccountRef: into,
      Line: [{ Amount: amount, LinkedTxn: [{ TxnId: invoice.Id, TxnType: 'Invoice' }] }],
    });
  const payment = await pay(120, undeposited);
  const checks = await pay(40, c.account(defaultAccountCodes.ChecksToDeposit));
  const sale = await c.create('SalesReceipt', { DepositToAccountRef: undeposited, Line: [line(25)] });
  const refund = await c.create('RefundReceipt', {
    CustomerRef: { value: customer.Id },
    DepositToAccountRef: undeposited,
    Line: [line(5)],
  });
  const journalLine = (posting: 'Debit' | 'Credit', account: { value: string }) => ({
    Amount: 1.75,
    DetailType: 'JournalEntryLineDetail',
    JournalEntryLineDetail: { PostingType: posting, AccountRef: account },
  });
  const fee = await c.create('JournalEntry', {
    Line: [
      journalLine('Debit', c.account(defaultAccountCodes.ProcessingFees)),
      journalLine('Credit', undeposited),
    ],
  });
  return { invoice, payment, checks, sale, refund, fee };
}

const link = (type: string, id: string, amount: number, lineId = '0') => ({
  Amount: amount,
  LinkedTxn: [{ TxnId: id, TxnType: type, TxnLineId: lineId }],
});

const deposit = (c: Company, ...lines: unknown[]) =>
  c.post('deposit', { DepositToAccountRef: c.account(defaultAccountCodes.OperatingBank), Line: lines });

function fault(answer: Answer): { status: number; code: string; Detail: string } {
  const error = (answer.body.Fault as { Error: { code: string; Detail: string }[] } | undefined)?.Error[0];
  return { status: answer.status, code: error?.code ?? '', Detail: error?.Detail ?? '' };
}

describe('QuickBooks Online rules: a Deposit’s linked lines', () => {
  it('deposit-linked-type: a line links a Transfer, Payment, SalesReceipt, RefundReceipt or JournalEntry, never an Invoice', async () => {
    const c = await company();
    const d = await day(c);
    const refused = fault(await deposit(c, link('Invoice', d.invoice.Id, 160)));
    expect(refused).toMatchObject({ status: 400, code: '6000' });
    expect(refused.Detail).toMatch(/Transfer, Payment, SalesReceipt, RefundReceipt or JournalEntry/);
  });

  it('deposit-undeposited: only what sits in Undeposited Funds is deposited (a payment to Checks To Deposit, a journal’s fee line are not)', async () => {
    const c = await company();
    const d = await day(c);
    for (const refused of [
      await deposit(c, link('Payment', d.checks.Id, 40)),
      await deposit(c, link('JournalEntry', d.fee.Id, 1.75, '0')),
    ]) {
      expect(fault(refused)).toMatchObject({ status: 400, code: '6000' });
      expect(fault(refused).Detail).toMatch(/not in Undeposited Funds/);
    }
    // The journal's own line on Undeposited Funds (its second, Id "1") is deposited.
    expect((await deposit(c, link('JournalEntry', d.fee.Id, -1.75, '1'))).status).toBe(200);
  });

  it('deposit-amount: a linked line is the amount the transaction put in Undeposited Funds, a refund’s negative', async () => {
    const c = await company();
    const d = await day(c);
    for (const refused of [
      await deposit(c, link('Payment', d.payment.Id, 100)),
      await deposit(c, link('RefundReceipt', d.refund.Id, 5)),
      await deposit(c, link('JournalEntry', d.fee.Id, 1.75, '1')),
    ]) {
      expect(fault(refused)).toMatchObject({ status: 400, code: '6000' });
      expect(fault(refused).Detail).toMatch(/put -?\d+(\.\d+)? in Undeposited Funds/);
    }
    const ok = await deposit(c, link('Payment', d.payment.Id, 120), link('RefundReceipt', d.refund.Id, -5));
    expect(ok.status).toBe(200);
  });

  it('deposit-once: a refund receipt and a journal’s line are deposited once, as a payment', async () => {
    const c = await company();
    const d = await day(c);
    const both = [link('RefundReceipt', d.refund.Id, -5), link('JournalEntry', d.fee.Id, -1.75, '1')];
    expect((await deposit(c, ...both)).status).toBe(200);
    for (const again of both) {
      const refused = fault(await deposit(c, again));
      expect(refused).toMatchObject({ status: 400, code: '6000' });
      expect(refused.Detail).toMatch(/already deposited/);
    }
  });

  it('deposit-total: TotalAmt is the lines’ sum, linked and manual; a TotalAmt sent is overwritten', async () => {
    const c = await company();
    const d = await day(c);
    const answer = await c.post('deposit', {
      DepositToAccountRef: c.account(defaultAccountCodes.OperatingBank),
      TotalAmt: 999,
      Line: [
        link('Payment', d.payment.Id, 120),
        link('RefundReceipt', d.refund.Id, -5),
        {
          Amount: -2,
          DetailType: 'DepositLineDetail',
          DepositLineDetail: { AccountRef: c.account(defaultAccountCodes.ProcessingFees) },
        },
      ],
    });
    expect((answer.body.Deposit as Entity).TotalAmt).toBe(113);
  });

  it('funds to deposit: what sits in Undeposited Funds until a deposit links it', async () => {
    const c = await company();
    const d = await day(c);
    const listed = () => double.fundsToDeposit(c.realmId).map((f) => [f.type, f.id, f.lineId, f.cents]);
    expect(listed()).toEqual([
      ['Payment', d.payment.Id, '0', 120_00],
      ['SalesReceipt', d.sale.Id, '0', 25_00],
      ['RefundReceipt', d.refund.Id, '0', -5_00],
      ['JournalEntry', d.fee.Id, '1', -1_75],
    ]);
    await deposit(c, link('Payment', d.payment.Id, 120), link('JournalEntry', d.fee.Id, -1.75, '1'));
    expect(listed()).toEqual([
      ['SalesReceipt', d.sale.Id, '0', 25_00],
      ['RefundReceipt', d.refund.Id, '0', -5_00],
    ]);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(20_00);
  });

  it('an update: its lines as sent are held to the same rules (its own links kept, what another deposit holds refused), TotalAmt made again', async () => {
    const c = await company();
    const d = await day(c);
    const own = (amount: number) => ({
      Amount: amount,
      DetailType: 'DepositLineDetail',
      DepositLineDetail: { AccountRef: c.account(defaultAccountCodes.ProcessorClearing) },
    });
    const made = (await deposit(c, link('Payment', d.payment.Id, 120), own(-5))).body.Deposit as Entity;
    const other = await deposit(c, link('JournalEntry', d.fee.Id, -1.75, '1'));
    expect(other.status).toBe(200);
    const update = (...lines: unknown[]) =>
      c.post('deposit?operation=update', {
        Id: made.Id,
        SyncToken: made.SyncToken,
        sparse: true,
        Line: lines,
      });
    // The fee's line, deposited by the other deposit, is refused; so is the refund for another amount.
    for (const refused of [
      await update(link('Payment', d.payment.Id, 120), link('JournalEntry', d.fee.Id, -1.75, '1')),
      await update(link('Payment', d.payment.Id, 120), link('RefundReceipt', d.refund.Id, 5), own(-10)),
    ])
      expect(fault(refused), fault(refused).Detail).toMatchObject({ status: 400, code: '6000' });
    // The refund linked, its own line gone: the payment it linked already is not "already deposited".
    const updated = await update(link('Payment', d.payment.Id, 120), link('RefundReceipt', d.refund.Id, -5));
    expect(updated.status).toBe(200);
    expect((updated.body.Deposit as Entity).TotalAmt).toBe(115);
    expect(double.fundsToDeposit(c.realmId).map((f) => f.type)).toEqual(['SalesReceipt']);
    // Undeposited Funds: the sale's 25.00 only; the deposit took the payment and the refund, as before.
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(25_00);
  });
});
