import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { RemoteRecord, TargetDocument } from '../../src/targets/target-port.js';
import { centsOf, isoDateOf, type TrytonDecimal } from '../../src/targets/tryton/json-rpc.js';
import { doubleForFile } from '../support/double-for-file.js';
import { pushIndex } from '../support/push-index.js';
import { quickBooksCompany } from '../support/quickbooks/company.js';
import { startTryton, type TrytonServer, trytonTarget } from '../support/tryton.js';
import { xeroOrganisation } from '../support/xero/organisation.js';

// A bill of last period still owed when the books open is an opening document: `bill:<id>` dated the day
// before the opening, Dr Opening Balances / Cr Accounts Payable for what it owed that day. Each target holds
// it as a payable to the vendor, its other side on the target's Opening Balances account (never an expense),
// open until the bill payment after the opening settles it.

const hash = (c: string) => c.repeat(64);

/** A bill owing 120.00 when the books opened on 2026-03-10, and its payment of 120.00 sent on 2026-03-15. */
function openingDocuments() {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const vendor = { serviceId: `ven_${run}`, name: `Opening Vendor ${run}`, email: `${run}@vendor.test` };
  const bill = { billId: `bill_${run}`, number: `VB-${run}`, dueDate: '2026-03-25' };
  const opening: TargetDocument = {
    key: `bill:${bill.billId}`,
    kind: 'bill',
    date: '2026-03-09',
    description: `Opening balance of bill ${bill.billId} from vendor ${vendor.serviceId}, owed when the books opened on 2026-03-10`,
    amountCents: 120_00,
    lines: [
      { role: 'OpeningBalances', amountCents: 120_00 },
      { role: 'AccountsPayable', amountCents: -120_00 },
    ],
    contentHash: hash('a'),
    bill,
    vendor,
    reference: bill.billId,
  };
  const payment: TargetDocument = {
    key: `bill-payment-sent:bp_${run}`,
    kind: 'bill-payment-sent',
    date: '2026-03-15',
    description: `Bill payment bp_${run} sent`,
    amountCents: 120_00,
    lines: [
      { role: 'AccountsPayable', amountCents: 120_00 },
      { role: 'OutgoingPaymentsClearing', amountCents: -120_00 },
    ],
    contentHash: hash('b'),
    bill,
    vendor,
    reference: `bp_${run}`,
  };
  return { opening, payment, billId: bill.billId, number: bill.number, vendor };
}

describe('QuickBooks Online: a bill owed when the books open', () => {
  const double = doubleForFile(new QuickBooksDouble());
  const cipher = new TokenCipher('test-secret-for-quickbooks-opening-bills');
  const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

  it('is a Bill whose line is on Opening Balance Equity, its Balance 120.00 until the bill payment', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = openingDocuments();
    const { pushed, context } = pushIndex();
    pushed.set(docs.opening.key, await target.push(docs.opening, context));
    expect(pushed.get(docs.opening.key)?.remoteIds[0]).toMatch(/^Bill:/);
    const billId = idOf(pushed.get(docs.opening.key)?.remoteIds[0]);
    const bill = double.get(c.realmId, 'Bill', billId);
    expect(bill).toMatchObject({
      DocNumber: docs.number,
      TotalAmt: 120,
      Balance: 120,
      TxnDate: '2026-03-09',
      DueDate: '2026-03-25',
    });
    const vendor = double.get(
      c.realmId,
      'Vendor',
      String((bill?.VendorRef as { value: string } | undefined)?.value),
    );
    expect(vendor?.DisplayName).toBe(docs.vendor.name);
    const equity = double.all(c.realmId, 'Account').find((a) => a.Name === 'Opening Balance Equity');
    expect(equity?.AccountType).toBe('Equity');
    const lines =
      (bill?.Line as
        | { Amount: number; AccountBasedExpenseLineDetail: { AccountRef: { value: string } } }[]
        | undefined) ?? [];
    expect(lines.map((l) => [l.Amount, l.AccountBasedExpenseLineDetail.AccountRef.value])).toEqual([
      [120, equity?.Id],
    ]);

    const payment = await target.push(docs.payment, context);
    expect(payment.remoteIds[0]).toMatch(/^BillPayment:/);
    expect(double.get(c.realmId, 'Bill', billId)?.Balance).toBe(0);
    const figures = await target.figuresAsOf('2026-03-15');
    expect(figures.openBills[docs.billId] ?? 0).toBe(0);
    expect(figures.balances.OpeningBalances).toBe(120_00);
    expect(figures.balances.AccountsPayable ?? 0).toBe(0);
    // Nothing on booksync's Bill Expenses: the company has no other postings.
    expect(figures.balances.BillExpenses ?? 0).toBe(0);
  });
});

describe('Xero: a bill owed when the books open', { timeout: 60_000 }, () => {
  const double = doubleForFile(
    new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
    { calm: true },
  );
  const cipher = new TokenCipher('test-secret-for-xero-opening-bills');
  const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

  it('is an ACCPAY invoice whose line is on the Opening Balances (equity) account, due 120.00 until the payment', async () => {
    const { tenantId, target: connect } = xeroOrganisation(double, cipher, { lockTtlMs: 0 });
    const target = connect();
    const docs = openingDocuments();
    const { pushed, context } = pushIndex();
    pushed.set(docs.opening.key, await target.push(docs.opening, context));
    const invoiceId = idOf(pushed.get(docs.opening.key)?.remoteIds[0]);
    const invoice = () => double.get(tenantId, 'Invoices', invoiceId);
    expect(invoice()).toMatchObject({
      Type: 'ACCPAY',
      Status: 'AUTHORISED',
      InvoiceNumber: docs.number,
      Total: 120,
      AmountDue: 120,
    });
    const contact = double.get(
      tenantId,
      'Contacts',
      String((invoice()?.Contact as { ContactID: string } | undefined)?.ContactID),
    );
    expect(contact?.Name).toBe(docs.vendor.name);
    const lines = invoice()?.LineItems as { AccountCode: string; LineAmount: number }[];
    expect(lines.map((l) => [l.AccountCode, l.LineAmount])).toEqual([
      [defaultAccountCodes.OpeningBalances, 120],
    ]);
    const account = double
      .all(tenantId, 'Accounts')
      .find((a) => a.Code === defaultAccountCodes.OpeningBalances);
    expect(account?.Type).toBe('EQUITY');

    await target.push(docs.payment, context);
    expect(invoice()).toMatchObject({ AmountDue: 0, AmountPaid: 120, Status: 'PAID' });
    const figures = await target.figuresAsOf('2026-03-15');
    expect(figures.openBills[docs.billId] ?? 0).toBe(0);
    expect(figures.balances.OpeningBalances).toBe(120_00);
    expect(figures.balances.BillExpenses ?? 0).toBe(0);
  });
});

describe('Tryton: a bill owed when the books open', { timeout: 180_000 }, () => {
  let tryton: TrytonServer;
  beforeAll(async () => {
    tryton = await startTryton();
  }, 300_000);
  afterAll(async () => {
    await tryton?.close();
  });

  type Line = {
    id: number;
    account: number;
    party: number | null;
    debit: TrytonDecimal;
    credit: TrytonDecimal;
    maturity_date: unknown;
    reconciliation: number | null;
  };
  const linesOf = (record: RemoteRecord | undefined) =>
    tryton.rpc.searchRead<Line>(
      'account.move.line',
      [['move', '=', Number(record?.remoteIds.find((r) => r.startsWith('account.move,'))?.split(',')[1])]],
      ['account', 'party', 'debit', 'credit', 'maturity_date', 'reconciliation'],
    );
  const accountIds = async (...codes: string[]) => {
    const rows = await tryton.rpc.searchRead<{ id: number; code: string }>(
      'account.account',
      [['code', 'in', codes]],
      ['code'],
    );
    return Object.fromEntries(rows.map((r) => [r.code, r.id]));
  };

  it('is the payable brought forward: a move Cr the vendor’s payable (due as the bill) / Dr Opening Balances, reconciled by the bill payment', async () => {
    const target = trytonTarget(tryton);
    const docs = openingDocuments();
    const { pushed, context } = pushIndex();
    const codes = defaultAccountCodes;
    const ids = await accountIds(codes.AccountsPayable, codes.OpeningBalances);
    const expensesBefore = (await tryton.balances([codes.BillExpenses]))[codes.BillExpenses] ?? 0;

    pushed.set(docs.opening.key, await target.push(docs.opening, context));
    expect(pushed.get(docs.opening.key)?.remoteIds).toEqual([expect.stringMatching(/^account\.move,\d+$/)]);
    const opening = await linesOf(pushed.get(docs.opening.key));
    expect(opening).toHaveLength(2);
    const payable = opening.find((l) => l.account === ids[codes.AccountsPayable]);
    expect(payable).toMatchObject({ reconciliation: null });
    expect(centsOf(payable?.credit)).toBe(120_00);
    expect(isoDateOf(payable?.maturity_date)).toBe('2026-03-25');
    const [party] = await tryton.rpc.model<{ name: string }[]>(
      'party.party',
      'read',
      [payable?.party],
      ['name'],
    );
    expect(party?.name).toBe(docs.vendor.name);
    expect(centsOf(opening.find((l) => l.account === ids[codes.OpeningBalances])?.debit)).toBe(120_00);
    // Found again by its key (a crashed push is not made twice), and the bill's open amount as Tryton's aged
    // balance counts it.
    expect((await target.find(docs.opening.key))?.remoteIds).toEqual(pushed.get(docs.opening.key)?.remoteIds);
    expect((await target.figuresAsOf('2026-03-10')).openBills[docs.billId]).toBe(120_00);

    pushed.set(docs.payment.key, await target.push(docs.payment, context));
    const [after] = await tryton.rpc.model<Line[]>(
      'account.move.line',
      'read',
      [payable?.id],
      ['reconciliation'],
    );
    expect(after?.reconciliation).not.toBeNull();
    const paying = (await linesOf(pushed.get(docs.payment.key))).find(
      (l) => l.account === ids[codes.AccountsPayable],
    );
    expect(paying?.reconciliation).toBe(after?.reconciliation);
    expect((await target.figuresAsOf('2026-03-15')).openBills[docs.billId] ?? 0).toBe(0);
    // Nothing on the bill expense account, and no supplier invoice made of it.
    expect((await tryton.balances([codes.BillExpenses]))[codes.BillExpenses] ?? 0).toBe(expensesBefore);
    expect(await tryton.rpc.searchRead('account.invoice', [['reference', '=', docs.number]], ['id'])).toEqual(
      [],
    );
  });

  it('pushed in one slice (pushMany), the bill payment waits for the opening move and then closes it', async () => {
    const target = trytonTarget(tryton);
    const docs = openingDocuments();
    const { context } = pushIndex();
    const [opening, payment] = await target.pushMany([docs.opening, docs.payment], context);
    if (!opening || opening instanceof Error) throw opening ?? new Error('no outcome');
    if (!payment || payment instanceof Error) throw payment ?? new Error('no outcome');
    expect(opening.remoteIds).toEqual([expect.stringMatching(/^account\.move,\d+$/)]);
    const payable = (await linesOf(opening)).find((l) => centsOf(l.credit) === 120_00);
    expect(payable?.reconciliation).not.toBeNull();
    expect((await target.figuresAsOf('2026-03-15')).openBills[docs.billId] ?? 0).toBe(0);
  });
});

describe('ledger mirror: a bill owed when the books open', () => {
  const mirror = EmbeddedLedger.open();
  afterAll(() => mirror.close());

  it('is the entry as booked: Opening Balances against A/P, settled by the payment, nothing on Bill Expenses', async () => {
    const target = new LedgerMirrorTarget(mirror);
    const docs = openingDocuments();
    await target.push(docs.opening);
    expect((await mirror.get(docs.opening.key))?.lines).toEqual([
      { account: Accounts.OpeningBalances, amountCents: 120_00 },
      { account: Accounts.AccountsPayable, amountCents: -120_00 },
    ]);
    await target.push(docs.payment);
    const balance = async (account: string) =>
      (await mirror.balances()).find((b) => b.account === account)?.balanceCents ?? 0;
    expect(await balance(Accounts.AccountsPayable)).toBe(0);
    expect(await balance(Accounts.OpeningBalances)).toBe(120_00);
    expect(await balance(Accounts.BillExpenses)).toBe(0);
  });
});
